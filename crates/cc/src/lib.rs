//! Congestion-control schemes.
