//! What a sender learns about the path of one of its packets, for the
//! entropy balancers ([`crate::reps`], [`crate::bitmap`]).

/// What an ACK/NACK/timeout says about a path (uet-htsim `PathFeedback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// Delivered without an ECN mark.
    Good,
    /// Delivered with an ECN mark.
    Ecn,
    /// Trimmed inside the fabric.
    Nack,
    /// Retransmission timeout (no EV).
    Timeout,
}
