//! Element discovery: in-page script + pure post-processing.
