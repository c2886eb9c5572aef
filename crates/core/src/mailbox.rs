//! What a part of a parallel run (`parallel.rs`) sends another over cut
//! links during a step: the packets, with their arrival time and when the
//! arrival was scheduled (its place among simultaneous events). Below the
//! simulator's state, which holds a part's mailboxes.

use crate::event::Key;
use crate::packet::Packet;
use crate::time::Time;
use crate::transport::Loss;

/// A packet sent over a cut link, on its way to the part it reaches.
pub(crate) struct Crossing {
    /// When it was sent (a failure of its link after that loses it).
    pub sent: Time,
    /// When it arrives, and when that arrival was scheduled.
    pub time: Time,
    pub t0: Time,
    /// The egress port it was sent from (its wire's port).
    pub port: u32,
    pub pkt: Packet,
}

/// Packets crossing to one part: a list whose entries are kept from step
/// to step and overwritten with only what a reader of each packet can see
/// ([`Packet::assign`]), so that a crossing moves a packet's used cache
/// lines between the cores, not all six.
#[derive(Default)]
pub(crate) struct Mailbox {
    list: Vec<Crossing>,
    len: usize,
}

impl Mailbox {
    #[inline]
    pub fn push(&mut self, sent: Time, time: Time, t0: Time, port: u32, pkt: &Packet) {
        if let Some(c) = self.list.get_mut(self.len) {
            (c.sent, c.time, c.t0, c.port) = (sent, time, t0, port);
            c.pkt.assign(pkt);
        } else {
            self.list.push(Crossing { sent, time, t0, port, pkt: pkt.clone() });
        }
        self.len += 1;
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The packets in the order they were sent.
    pub fn iter(&self) -> impl Iterator<Item = &Crossing> {
        self.list[..self.len].iter()
    }

    /// Empties it, keeping the entries for reuse.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// What a part of a parallel run tells the others about messages
/// (`msg.rs`): the releases of connections whose receiver another part
/// holds, and the losses its switches saw on connections sent from other
/// parts. Empty in a whole run.
#[derive(Default)]
pub(crate) struct MsgMail {
    /// Each node's part.
    pub node_part: Vec<u16>,
    /// Per part: (message, stream offset) of the messages released here
    /// during the step whose receiver that part holds, in release order.
    pub out: Vec<Vec<(u32, u64)>>,
    /// Per part: the releases it sent here in the last step.
    pub inbox: Vec<Vec<(u32, u64)>>,
    /// Drops and trims at this part's switches of data of connections sent
    /// from other parts: given to their message when the parts merge.
    pub losses: Vec<RemoteLoss>,
}

/// A drop or trim of a connection's data away from its sender's part: the
/// event it happened in (time, key), the flow, the stream byte and what.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RemoteLoss {
    pub at: (Time, Key),
    pub flow: u32,
    pub seq: u64,
    pub what: Loss,
}
