//! Set-of-Marks rendering on decoded screenshots (pure).
