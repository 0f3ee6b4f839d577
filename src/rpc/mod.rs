//! BAP JSON-RPC 2.0: method table, params/result types, error codes.
