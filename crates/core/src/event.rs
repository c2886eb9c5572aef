//! Event queue (filled in by the engine).
