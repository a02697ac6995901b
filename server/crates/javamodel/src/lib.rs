//! The Java model.
