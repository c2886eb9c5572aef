//! Routing tables (filled in by the engine).
