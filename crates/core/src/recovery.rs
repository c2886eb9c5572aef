//! Per-packet loss recovery (`network.recovery = "packet"`): what UET's
//! packet delivery keeps on each side, after uet-htsim (htsim/sim/uec.cpp at
//! 40ccb05). The sender numbers its data packets (PSNs, kept by resends)
//! and records each one's bytes and last send time until the receiver has
//! it, cumulatively or in a SACK bitmap; its one timer runs for the earliest
//! send time among the packets still out (`UecSrc::startRTO`,
//! `recalculateRTO`), and on expiry only that packet is resent
//! (`rtxTimerExpired`). The receiver keeps the PSNs it holds above its
//! cumulative point and builds the 64-PSN bitmaps (`UecSink::processData`,
//! `sackBitmapBase`, `buildSackBitmap`). The code that moves this state is
//! in `host.rs`; the byte stream (`Sender::una`, `Receiver::ooo`) stays
//! what delivery and completion read.

use std::collections::{BTreeSet, VecDeque};

use crate::time::Time;

/// PSNs a SACK bitmap covers (UET's 64-bit bitmap).
pub(crate) const SACK_BITS: u32 = 64;

/// Where a recorded packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Sent and neither ACKed nor SACKed: its timer runs.
    Out,
    /// Waiting to be resent (a trim NACK or its timer named it): its bytes
    /// are in `Sender::rtx`.
    Queued,
    /// The receiver holds it (a SACK bitmap said so).
    Held,
}

/// One data packet the sender has sent and the receiver has not
/// cumulatively acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub seq: u64,
    pub len: u32,
    pub sent_at: Time,
    pub state: State,
    /// Resent at least once (uet-htsim `_rtx_times[psn] >= 1`).
    pub resent: bool,
}

/// The sender's packets from the lowest not cumulatively acknowledged on,
/// by PSN (first transmissions go in byte order, so byte order too), and
/// the send times of those still out, earliest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct SendRecords {
    /// PSN of `records[0]`.
    first: u32,
    records: VecDeque<Record>,
    out: BTreeSet<(Time, u32)>,
}

impl SendRecords {
    fn get_mut(&mut self, psn: u32) -> Option<&mut Record> {
        let i = psn.checked_sub(self.first)?;
        self.records.get_mut(i as usize)
    }

    /// The PSN of the recorded packet that starts at byte `seq`.
    pub fn psn_of(&self, seq: u64) -> Option<u32> {
        let i = self.records.partition_point(|r| r.seq < seq);
        (self.records.get(i)?.seq == seq).then_some(self.first + i as u32)
    }

    /// A new packet of `len` bytes from `seq` leaves at `now`: its PSN.
    pub fn sent_new(&mut self, seq: u64, len: u32, now: Time) -> u32 {
        let psn = self.first + self.records.len() as u32;
        self.records.push_back(Record { seq, len, sent_at: now, state: State::Out, resent: false });
        self.out.insert((now, psn));
        psn
    }

    /// Packet `psn` is resent at `now`: its timer starts again.
    pub fn resent(&mut self, psn: u32, now: Time) {
        let Some(r) = self.get_mut(psn) else { return };
        let old = (r.sent_at, r.state);
        (r.sent_at, r.state, r.resent) = (now, State::Out, true);
        if old.1 == State::Out {
            self.out.remove(&(old.0, psn));
        }
        self.out.insert((now, psn));
    }

    fn settle(&mut self, psn: u32, to: State) -> Option<Record> {
        let r = self.get_mut(psn)?;
        let before = *r;
        r.state = to;
        if before.state == State::Out {
            self.out.remove(&(before.sent_at, psn));
        }
        Some(before)
    }

    /// The receiver has every byte below `una`: the packets that end there
    /// are forgotten (`handleCumulativeAck`).
    pub fn cumulative(&mut self, una: u64) {
        while let Some(r) = self.records.front() {
            if r.seq + r.len as u64 > una {
                break;
            }
            if r.state == State::Out {
                self.out.remove(&(r.sent_at, self.first));
            }
            self.records.pop_front();
            self.first += 1;
        }
    }

    /// A SACK bitmap from PSN `base`: the packets it names are held
    /// (`handleAckno`); those that were waiting to be resent leave the
    /// resend queue `rtx` (byte ranges).
    pub fn sacked(&mut self, base: u32, bitmap: u64, rtx: &mut Vec<(u64, u64)>) {
        let mut bits = bitmap;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let Some(psn) = base.checked_add(i) else { break };
            if let Some(r) = self.settle(psn, State::Held) {
                if r.state == State::Queued {
                    let range = (r.seq, r.seq + r.len as u64);
                    rtx.retain(|&q| q != range);
                }
            }
        }
    }

    /// A trim NACK (or SLEEK, `sleek.rs`) named packet `psn`: if it was
    /// out, it waits to be resent; its byte range, to queue.
    pub fn nacked(&mut self, psn: u32) -> Option<(u64, u64)> {
        let r = self.get_mut(psn)?;
        if r.state != State::Out {
            return None;
        }
        self.settle(psn, State::Queued).map(|r| (r.seq, r.seq + r.len as u64))
    }

    /// The earliest send time among the packets out.
    pub fn earliest(&self) -> Option<Time> {
        self.out.first().map(|&(t, _)| t)
    }

    /// The timer expired: the earliest packet out waits to be resent. Its
    /// PSN and byte range.
    pub fn expire(&mut self) -> Option<(u32, u64, u64)> {
        let &(_, psn) = self.out.first()?;
        self.settle(psn, State::Queued).map(|r| (psn, r.seq, r.seq + r.len as u64))
    }

    /// The PSN the cumulative point stands at (uet-htsim's `cum_ack`).
    pub fn first_psn(&self) -> u32 {
        self.first
    }

    /// The PSN the next new packet will take (uet-htsim `_highest_sent`).
    pub fn next_psn(&self) -> u32 {
        self.first + self.records.len() as u32
    }

    /// Packet `psn`, if recorded.
    pub fn get(&self, psn: u32) -> Option<&Record> {
        self.records.get(psn.checked_sub(self.first)? as usize)
    }

    /// SLEEK in loss recovery: the timer expired on the earliest packet
    /// out, which stays out, untimed, for SLEEK to resend
    /// (`rtxTimerExpired` takes it off `_send_times` only). Its PSN and
    /// whether it was resent before.
    pub fn untime_earliest(&mut self) -> Option<(u32, bool)> {
        let (t, psn) = self.out.pop_first()?;
        let r = self.get(psn)?;
        debug_assert_eq!((r.sent_at, r.state), (t, State::Out));
        Some((psn, r.resent))
    }

    /// Packets recorded (not cumulatively acknowledged).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.records.len()
    }
}

/// The receiver's PSNs: the next expected, those held above it, whether an
/// ACK was requested while some were missing, and packets since its last ACK.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecvPsns {
    pub nxt: u32,
    /// Held above `nxt`, sorted.
    held: Vec<u32>,
    /// An ACK-request flag arrived while packets were missing: ACK again
    /// when the gap closes (uet-htsim `_ack_request`).
    ack_request: bool,
    /// Packets accepted since the last ACK.
    pub since_ack: u32,
}

/// What a data packet's PSN tells its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// Held already (a duplicate): ACK at once.
    pub duplicate: bool,
    /// An earlier ACK request waited for the gap this packet closed.
    pub gap_closed: bool,
}

impl RecvPsns {
    /// Packet `psn` arrived, with the ACK-request flag `ar`.
    pub fn arrive(&mut self, psn: u32, ar: bool) -> Arrival {
        let mut gap_closed = false;
        if psn < self.nxt {
            return Arrival { duplicate: true, gap_closed };
        }
        if psn == self.nxt {
            self.nxt += 1;
            let run = self.held.iter().zip(self.nxt..).take_while(|(&h, n)| h == *n).count();
            self.held.drain(..run);
            self.nxt += run as u32;
            if self.held.is_empty() && self.ack_request {
                self.ack_request = false;
                gap_closed = true;
            }
        } else {
            match self.held.binary_search(&psn) {
                Ok(_) => return Arrival { duplicate: true, gap_closed },
                Err(i) => self.held.insert(i, psn),
            }
        }
        if ar {
            self.ack_request = true;
        }
        Arrival { duplicate: false, gap_closed }
    }

    /// The SACK bitmap an ACK answering packet `psn` carries: from `psn`
    /// itself when the ACK was forced by a CE mark or an ACK request, else
    /// from the lowest PSN that keeps `psn` in the 64 (and above the
    /// cumulative point); bit i = `base + i` held (`sackBitmapBase`).
    pub fn sack(&self, psn: u32, from_psn: bool) -> (u32, u64) {
        let base = if from_psn { psn } else { psn.saturating_sub(SACK_BITS - 1).max(self.nxt + 1) };
        let start = self.held.partition_point(|&h| h < base);
        let bitmap =
            self.held[start..].iter().take_while(|&&h| h < base + SACK_BITS).fold(0u64, |b, &h| b | 1 << (h - base));
        (base, bitmap)
    }
}

/// One flow's SLEEK state (`network.sleek`; uet-htsim `UecSrc` members).
/// The code that moves it is `sleek.rs`.
#[derive(Clone, Debug)]
pub(crate) struct Sleek {
    /// In loss recovery (`_loss_recovery_mode`).
    pub recovery: bool,
    /// Recovery ends when the cumulative point reaches this PSN (`_recovery_seqno`).
    pub recovery_psn: u32,
    /// SLEEK resends no PSN below this (`_highest_rtx_sent`).
    pub highest_rtx: u32,
    /// When the probe timer fires; 0 when it is not armed (`_probe_timer_when`).
    pub probe_at: Time,
    /// When the pending `Ev::Probe` fires (`Time::MAX`: none). The timer is
    /// kept lazily: an event earlier than `probe_at` arms it again.
    pub armed: Time,
    /// When the latest probe left (`_probe_send_time`): a probe ACK that
    /// echoes another time answers an older probe.
    pub probe_sent: Time,
}

impl Default for Sleek {
    fn default() -> Self {
        Sleek { recovery: false, recovery_psn: 0, highest_rtx: 0, probe_at: 0, armed: Time::MAX, probe_sent: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> SendRecords {
        let mut s = SendRecords::default();
        for (i, at) in [10, 20, 30].into_iter().enumerate() {
            assert_eq!(s.sent_new(i as u64 * 1000, 1000, at), i as u32);
        }
        s
    }

    #[test]
    fn the_timer_follows_the_earliest_packet_out() {
        let mut s = three();
        assert_eq!(s.earliest(), Some(10));
        // SACKing the first moves the timer to the second
        let mut rtx = Vec::new();
        s.sacked(0, 0b1, &mut rtx);
        assert_eq!(s.earliest(), Some(20));
        // expiry queues the earliest out, and only it
        assert_eq!(s.expire(), Some((1, 1000, 2000)));
        assert_eq!(s.earliest(), Some(30));
        // its resend restarts its timer at the resend
        s.resent(1, 50);
        assert_eq!(s.earliest(), Some(30));
        s.cumulative(3000);
        assert_eq!((s.earliest(), s.len()), (None, 0));
    }

    #[test]
    fn sleek_untimes_a_packet_and_knows_its_resends() {
        let mut s = three();
        assert_eq!((s.first_psn(), s.next_psn()), (0, 3));
        // the earliest leaves the timer but stays out, never resent
        assert_eq!(s.untime_earliest(), Some((0, false)));
        assert_eq!(s.earliest(), Some(20));
        assert_eq!(s.get(0).map(|r| r.state), Some(State::Out));
        // SLEEK queues it, it is resent and timed again, as resent
        assert_eq!(s.nacked(0), Some((0, 1000)));
        s.resent(0, 40);
        assert_eq!(s.untime_earliest(), Some((1, false)));
        assert_eq!(s.untime_earliest(), Some((2, false)));
        assert_eq!(s.untime_earliest(), Some((0, true)));
        assert_eq!(s.untime_earliest(), None);
        s.cumulative(3000);
        assert_eq!((s.first_psn(), s.next_psn(), s.len()), (3, 3, 0));
    }

    #[test]
    fn a_sack_of_a_queued_packet_unqueues_its_bytes() {
        let mut s = three();
        assert_eq!(s.nacked(2), Some((2000, 3000)));
        assert_eq!(s.nacked(2), None, "already queued");
        let mut rtx = vec![(2000, 3000), (5000, 6000)];
        s.sacked(1, 0b11, &mut rtx);
        assert_eq!(rtx, vec![(5000, 6000)]);
        assert_eq!(s.earliest(), Some(10));
        // the cumulative point passes a packet only when all its bytes are in
        s.cumulative(999);
        assert_eq!(s.psn_of(0), Some(0));
        s.cumulative(1000);
        assert_eq!((s.psn_of(0), s.psn_of(1000)), (None, Some(1)));
    }

    #[test]
    fn the_receiver_closes_gaps_and_acks_a_request_when_they_close() {
        let mut r = RecvPsns::default();
        assert_eq!(r.arrive(0, false), Arrival { duplicate: false, gap_closed: false });
        r.arrive(2, true);
        r.arrive(3, false);
        assert_eq!(r.nxt, 1);
        // bitmap from the requesting packet, and from above the cumulative point
        assert_eq!(r.sack(2, true), (2, 0b11));
        assert_eq!(r.sack(3, false), (2, 0b11));
        assert!(r.arrive(3, false).duplicate);
        assert_eq!(r.arrive(1, false), Arrival { duplicate: false, gap_closed: true });
        assert_eq!(r.nxt, 4);
        assert!(r.arrive(2, false).duplicate);
        // a PSN 64 ahead of the base is outside the bitmap
        r.arrive(70, false);
        r.arrive(5, false);
        assert_eq!(r.sack(70, false), (7, 1 << 63));
        assert_eq!(r.sack(5, false), (5, 1));
    }
}
