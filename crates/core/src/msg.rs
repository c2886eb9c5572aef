//! Connections and the messages they carry: release (at a time, or after the
//! messages a message depends on plus a delay), the byte stream a connection
//! sends (messages end to end, each packetized on its own), delivery at the
//! receiver, completion at the sender, and the messages a [`MessageSource`]
//! makes as the run goes.
//!
//! A connection is a [`Flow`](crate::transport::Flow) whose data arrives over time:
//! `Sender::avail` is the end of the data released so far, and the NIC, the
//! transport and the scheme see the same flow state across messages. A flow is
//! the special case of one message released at its start, and runs on the
//! flow code paths untouched.

use crate::cc::SenderCx;
use crate::event::Ev;
use crate::flow::{MessageEvent, MessageInfo, MessageSpec};
use crate::results::{ConnResult, FlowResult, TaskResult};
use crate::state::Simulator;
use crate::time::Time;
use crate::transport::{CcOp, Flow, Loss, Losses, Msg, TASK};

impl Simulator {
    /// Checks and registers messages `specs` (ids from `self.msgs.len()` on)
    /// and schedules the release of those that wait for nothing. Errors name
    /// the message and the field.
    pub(crate) fn add_messages(&mut self, specs: Vec<MessageSpec>) -> Result<(), String> {
        let n_conns = self.flows.len() as u32 - self.n_plain;
        for spec in specs {
            let id = self.msgs.len() as u32;
            let name = format!("message {id}");
            let (flow, host) = match spec.compute_on {
                Some(h) if self.topo.is_host(h) => (TASK, h),
                Some(h) => return Err(format!("{name}: compute_on = {h}: not a host")),
                None if spec.conn >= n_conns => {
                    return Err(format!("{name}: conn = {}: there are {n_conns} connections", spec.conn))
                }
                None if spec.size == 0 => return Err(format!("{name}: size must be positive")),
                None => (self.n_plain + spec.conn, 0),
            };
            let src = if flow == TASK { host } else { self.flows[flow as usize].view.src };
            let mut deps_left = 0;
            let mut deps_done_at = 0;
            for &d in &spec.after {
                if d >= id {
                    return Err(format!("{name}: after = {d}: a message may only wait for earlier messages"));
                }
                // a dependency already done (a source's message) counts as done
                match self.dep_time(d, src) {
                    Some(t) => deps_done_at = deps_done_at.max(t),
                    None => {
                        deps_left += 1;
                        self.dependents[d as usize].push(id);
                    }
                }
            }
            let m = Msg {
                flow,
                host,
                size: spec.size,
                at: spec.at,
                delay: spec.delay,
                tag: spec.tag,
                deps_left,
                deps_done_at,
                waits: !spec.after.is_empty(),
                offset: 0,
                released: None,
                delivered: None,
                done: None,
                done_key: Default::default(),
                losses: Losses::default(),
            };
            self.msgs.push(m);
            self.dependents.push(Vec::new());
            self.ctl.total += 1;
            // (made after every flow had finished: the run goes on)
            self.ctl.end = Time::MAX;
            if deps_left == 0 {
                self.schedule_release(id);
            }
        }
        Ok(())
    }

    /// Source host of message (or task) `m`.
    fn msg_src(&self, m: &Msg) -> u32 {
        if m.flow == TASK {
            m.host
        } else {
            self.flows[m.flow as usize].view.src
        }
    }

    /// Destination host of message (or task) `m`.
    fn msg_dst(&self, m: &Msg) -> u32 {
        if m.flow == TASK {
            m.host
        } else {
            self.flows[m.flow as usize].view.dst
        }
    }

    /// When dependency `d` counts as done for a message sent from host
    /// `src`: its delivery if that is `d`'s receiver, else its completion.
    fn dep_time(&self, d: u32, src: u32) -> Option<Time> {
        let dm = &self.msgs[d as usize];
        if src == self.msg_dst(dm) {
            dm.delivered
        } else {
            dm.done
        }
    }

    /// Schedules message `m`'s release (all its dependencies are done).
    fn schedule_release(&mut self, m: u32) {
        let msg = &self.msgs[m as usize];
        let t = if msg.waits { msg.at.max(msg.deps_done_at + msg.delay) } else { msg.at };
        self.events.push(t.max(self.now), Ev::MsgRelease { msg: m });
    }

    /// Message `m` is released: it joins its connection's stream (a compute
    /// task is done at once).
    pub(crate) fn msg_release(&mut self, m: u32) {
        let now = self.now;
        let msg = &mut self.msgs[m as usize];
        msg.released = Some(now);
        if msg.flow == TASK {
            msg.delivered = Some(now);
            msg.done = Some(now);
            self.ctl.started += 1;
            self.ctl.finish_one(self.now);
            self.msg_event(m, MessageEvent::Delivered);
            self.msg_event(m, MessageEvent::Completed);
            return;
        }
        let (f, size) = (msg.flow, msg.size);
        // (in a part of a parallel run the receiver's part keeps the list
        // of messages to deliver: `tell_receiver_part`)
        let rx_here = !self.mode.cut || self.receives_here(f);
        let fl = &mut self.flows[f as usize];
        let offset = fl.snd.avail;
        self.msgs[m as usize].offset = offset;
        let idle = fl.snd.una >= fl.snd.avail;
        fl.snd.avail += size;
        let c = fl.conn.as_mut().expect("a message's flow is a connection");
        c.msg_start = offset;
        if idle {
            c.burst_start = offset;
            // an idle connection has made no progress it could be blamed for
            fl.snd.last_progress = now;
        }
        c.tx.push_back((offset + size, m));
        if rx_here {
            c.rx.push_back((offset + size, m));
        }
        c.released += 1;
        let first = !c.started;
        c.started = true;
        if self.mode.cut {
            self.tell_receiver_part(m, f, offset);
        }
        self.ctl.started += 1;
        self.ctl.last_progress = now;
        if first {
            let hi = self.node_index[self.flows[f as usize].view.src as usize] as usize;
            self.cc_call(f, CcOp::Start);
            if self.credit.is_some() {
                self.credit_start(f);
            }
            self.nic_start(hi, f);
            if let Some(rto) = self.mode.rto {
                self.events.push(now + rto, Ev::Rto { flow: f });
            }
            let p = self.hosts[hi].port;
            self.try_send(p);
        } else {
            self.kick_sender(f);
        }
    }

    /// End of the message of connection flow `f` that holds stream byte `seq`.
    pub(crate) fn msg_end(&self, f: u32, seq: u64) -> u64 {
        let fl = &self.flows[f as usize];
        match &fl.conn {
            None => fl.view.size,
            Some(c) => {
                let i = c.tx.partition_point(|&(end, _)| end <= seq);
                c.tx.get(i).map_or(fl.snd.avail, |&(end, _)| end)
            }
        }
    }

    /// Counts `what` for flow `f`'s data packet from stream byte `seq` (a
    /// timeout: `snd_una`), and on a connection for the message that holds
    /// that byte while it is outstanding at the sender (bytes of a message
    /// already completed, a stale duplicate's, count on the connection only).
    /// A counter increment where the event happens, plus a binary search of
    /// the outstanding messages on a connection.
    #[inline]
    pub(crate) fn count_loss(&mut self, f: u32, seq: u64, what: Loss) {
        let fl = &mut self.flows[f as usize];
        fl.snd.losses.add(what);
        if fl.conn.is_some() && self.mode.cut && !self.sends_here(f) {
            // the sender's part knows the outstanding messages
            let at = (self.now, self.events.current().1);
            self.msg_mail.losses.push(crate::mailbox::RemoteLoss { at, flow: f, seq, what });
            return;
        }
        let fl = &mut self.flows[f as usize];
        if let Some(c) = &fl.conn {
            let i = c.tx.partition_point(|&(end, _)| end <= seq);
            if let Some(&(_, m)) = c.tx.get(i) {
                let msg = &mut self.msgs[m as usize];
                if seq >= msg.offset {
                    msg.losses.add(what);
                }
            }
        }
    }

    /// Fills in the fields of a sender context beyond `SenderCx::new`'s:
    /// what the receiver holds and the lower edge of the bytes in flight
    /// (every flow), and a connection's message fields.
    pub(crate) fn conn_cx(fl: &Flow, cx: &mut SenderCx) {
        cx.delivered = fl.snd.delivered.max(cx.snd_una);
        // (una_eff never passes snd_nxt: `count_out_of_flight` bounds it)
        cx.una_eff = fl.snd.una_eff.max(cx.snd_una);
        if let Some(c) = &fl.conn {
            cx.avail = fl.snd.avail;
            cx.msg_start = c.msg_start;
            cx.burst_start = c.burst_start;
        }
    }

    /// Connection flow `f`'s receiver has everything up to `rcv_nxt`: the
    /// messages that ends are delivered. Returns whether any was.
    pub(crate) fn deliver(&mut self, f: u32, rcv_nxt: u64) -> bool {
        let mut any = false;
        loop {
            let c = self.flows[f as usize].conn.as_mut().expect("a connection");
            match c.rx.front() {
                Some(&(end, m)) if end <= rcv_nxt => {
                    c.rx.pop_front();
                    any = true;
                    self.msgs[m as usize].delivered = Some(self.now);
                    self.msg_event(m, MessageEvent::Delivered);
                }
                _ => return any,
            }
        }
    }

    /// Connection flow `f`'s sender has everything up to `snd_una`
    /// acknowledged: the messages that ends are complete.
    pub(crate) fn complete_msgs(&mut self, f: u32, snd_una: u64) {
        loop {
            let c = self.flows[f as usize].conn.as_mut().expect("a connection");
            match c.tx.front() {
                Some(&(end, m)) if end <= snd_una => {
                    c.tx.pop_front();
                    c.completed += 1;
                    self.msgs[m as usize].done = Some(self.now);
                    self.msgs[m as usize].done_key = self.events.current().1;
                    self.ctl.finish_one(self.now);
                    self.msg_event(m, MessageEvent::Completed);
                }
                _ => return,
            }
        }
    }

    /// Tells message `m`'s dependents and the source what happened to it.
    fn msg_event(&mut self, m: u32, what: MessageEvent) {
        let now = self.now;
        let from_dst = self.msg_dst(&self.msgs[m as usize]);
        let deps = std::mem::take(&mut self.dependents[m as usize]);
        let mut keep = Vec::new();
        for d in deps {
            let on_delivery = self.msg_src(&self.msgs[d as usize]) == from_dst;
            if on_delivery != (what == MessageEvent::Delivered) {
                keep.push(d);
                continue;
            }
            let dm = &mut self.msgs[d as usize];
            dm.deps_left -= 1;
            dm.deps_done_at = dm.deps_done_at.max(now);
            if dm.deps_left == 0 {
                self.schedule_release(d);
            }
        }
        self.dependents[m as usize] = keep;
        if let Some(mut src) = self.source.take() {
            let msg = &self.msgs[m as usize];
            let info = MessageInfo {
                id: m,
                conn: if msg.flow == TASK { u32::MAX } else { msg.flow - self.n_plain },
                size: msg.size,
                tag: msg.tag,
                released: msg.released.unwrap_or(now),
            };
            let mut out = Vec::new();
            src.on_message(now, what, &info, &mut out);
            self.source = Some(src);
            if !out.is_empty() {
                if let Err(e) = self.add_messages(out) {
                    panic!("the message source made an invalid message: {e}");
                }
            }
        }
    }

    /// The released messages' rows (ids after the flows'), the connections'
    /// totals, the compute tasks that ran and the number of messages and
    /// tasks never released.
    pub(crate) fn message_results(&self) -> (Vec<FlowResult>, Vec<ConnResult>, Vec<TaskResult>, u64) {
        let mut rows = Vec::new();
        let mut tasks = Vec::new();
        let mut waiting = 0;
        for (m, msg) in self.msgs.iter().enumerate() {
            let Some(start) = msg.released else {
                waiting += 1;
                continue;
            };
            if msg.flow == TASK {
                tasks.push(TaskResult { id: self.n_plain + m as u32, host: msg.host, done: start, tag: msg.tag });
                continue;
            }
            let v = &self.flows[msg.flow as usize].view;
            let ideal = crate::transport::ideal_fct(v, msg.size, &self.net);
            let fct = msg.done.map(|t| t - start);
            rows.push(FlowResult {
                id: self.n_plain + m as u32,
                src: v.src,
                dst: v.dst,
                size: msg.size,
                start,
                fct,
                ideal_fct: ideal,
                slowdown: fct.map(|x| (x as f64 / ideal as f64).max(1.0)),
                retransmits: msg.losses.retransmits,
                timeouts: msg.losses.timeouts,
                trimmed: msg.losses.trimmed,
                drops: msg.losses.drops,
                conn: Some(msg.flow - self.n_plain),
                tag: Some(msg.tag),
            });
        }
        let conns = self.flows[self.n_plain as usize..]
            .iter()
            .map(|fl| {
                let c = fl.conn.as_ref().expect("a connection");
                ConnResult {
                    id: c.id,
                    src: fl.view.src,
                    dst: fl.view.dst,
                    messages: c.released,
                    completed: c.completed,
                    bytes: fl.snd.avail,
                    acked: fl.snd.una,
                    retransmits: fl.snd.losses.retransmits,
                    timeouts: fl.snd.losses.timeouts,
                    trimmed: fl.snd.losses.trimmed,
                    drops: fl.snd.losses.drops,
                }
            })
            .collect();
        (rows, conns, tasks, waiting)
    }
}

/// Messages in a part of a parallel run (`parallel.rs`): a connection's
/// sender and receiver may be in different parts.
impl Simulator {
    /// Whether flow `f`'s sender is in this part.
    pub(crate) fn sends_here(&self, f: u32) -> bool {
        self.msg_mail.node_part[self.flows[f as usize].view.src as usize] == self.mode.part
    }

    /// Whether flow `f`'s receiver is in this part.
    fn receives_here(&self, f: u32) -> bool {
        self.msg_mail.node_part[self.flows[f as usize].view.dst as usize] == self.mode.part
    }

    /// Message `m` of connection flow `f` was released at stream offset
    /// `offset`: the part holding the receiver learns it at the barrier,
    /// before any of its data can arrive there (data crosses a cut link,
    /// which takes at least a grid step).
    fn tell_receiver_part(&mut self, m: u32, f: u32, offset: u64) {
        if !self.receives_here(f) {
            let to = self.msg_mail.node_part[self.flows[f as usize].view.dst as usize];
            self.msg_mail.out[to as usize].push((m, offset));
        }
    }

    /// Takes the releases other parts told this one of: the receivers'
    /// lists of messages to deliver.
    pub(crate) fn take_releases(&mut self) {
        for from in 0..self.msg_mail.inbox.len() {
            let mut list = std::mem::take(&mut self.msg_mail.inbox[from]);
            for &(m, offset) in &list {
                let msg = &mut self.msgs[m as usize];
                msg.offset = offset;
                let (f, end) = (msg.flow as usize, offset + msg.size);
                self.flows[f].snd.avail = self.flows[f].snd.avail.max(end);
                self.flows[f].conn.as_mut().expect("a connection").rx.push_back((end, m));
            }
            list.clear();
            self.msg_mail.inbox[from] = list;
        }
    }

    /// The part of message `m`'s sender (a task's host), and of its receiver.
    pub(crate) fn msg_parts(&self, m: u32, part_of: &[u16]) -> (u16, u16) {
        let msg = &self.msgs[m as usize];
        (part_of[self.msg_src(msg) as usize], part_of[self.msg_dst(msg) as usize])
    }

    /// A message waiting for another whose delivery or completion (the one
    /// it waits for: `dep_time`) happens in another part than the waiting
    /// message's sender: a part cannot see it in time, so the run cannot be
    /// cut so. Why, if one does.
    pub(crate) fn cross_part_wait(&self, part_of: &[u16]) -> Option<String> {
        for (d, waiting) in self.dependents.iter().enumerate() {
            let dm = &self.msgs[d];
            for &m in waiting {
                let src = self.msg_src(&self.msgs[m as usize]);
                let (at, what) = if src == self.msg_dst(dm) {
                    (self.msg_dst(dm), "delivery")
                } else {
                    (self.msg_src(dm), "completion")
                };
                if part_of[at as usize] != part_of[src as usize] {
                    return Some(format!(
                        "message {m} (from host {src}) waits for the {what} of message {d} at host {at}, \
                         in another part of the network"
                    ));
                }
            }
        }
        None
    }
}
