//! Link failures and repairs (`network.link_events`). A failing link stops in
//! both directions at once: what its two egress queues hold and what is on its
//! two wires is dropped and counted (per egress port and in the run's drops),
//! the ingress buffer accounting of dropped packets is released (so an
//! upstream paused because of them is resumed), the PFC state of the link is
//! cleared in both directions, and every switch's routes are recomputed on the
//! links that are up, at once or `network.reroute_delay` later (meanwhile
//! switches still route onto the failed link and lose what they send there).
//! A repaired link is added back to the routes. The
//! transport recovers the lost packets (NACK on the next gap, or the RTO,
//! which is on by default when a scenario has link events).

use crate::packet::{Fifo, PktKind};
use crate::port::Port;
use crate::port::NC;
use crate::routing::Routing;
use crate::state::Simulator;
use crate::wiring::up_ports;

/// `Ev::Link` index of a delayed route change (`network.reroute_delay`).
pub(crate) const REROUTE: u32 = u32::MAX;

impl Simulator {
    /// Recomputes the routes now, or `network.reroute_delay` from now.
    fn reroute_after_event(&mut self) {
        let d = self.net.reroute_delay.0;
        if d == 0 {
            self.reroute();
        } else {
            self.events.push(self.now + d, crate::event::Ev::Link { idx: REROUTE });
        }
    }

    /// Applies a link event: `up` = repair, else failure. Link `li` is a
    /// topology link index. Every part of a parallel run applies every link
    /// event, so that each knows every link's state for its routes: a port
    /// the part has not built is only marked down or up.
    pub(crate) fn link_event(&mut self, li: usize, up: bool) {
        self.link_events_run += 1;
        let (pa, pb) = self.link_ports[li];
        if up {
            self.ports[pa as usize].down = false;
            self.ports[pb as usize].down = false;
            self.reroute_after_event();
            for p in [pa, pb] {
                if self.owns_port(p) {
                    self.try_send(p);
                }
            }
            return;
        }
        let mut released = Vec::new();
        for p in [pa, pb] {
            if self.ports[p as usize].built {
                self.port_down(p, &mut released);
            } else {
                self.ports[p as usize].down = true;
            }
        }
        self.reroute_after_event();
        if self.mode.lossless != 0 {
            // an ingress that paused its upstream because of packets now gone may resume
            released.sort_unstable();
            released.dedup();
            for (si, ip, c) in released {
                self.check_resume(si, ip, c);
            }
            // ingresses paused for the emptied egresses (xoff_at = "egress")
            for e in [pa, pb] {
                let node = self.ports[e as usize].node as usize;
                if self.ports[e as usize].xoff_fed != 0 && !self.ports[e as usize].is_host {
                    let si = self.node_index[node] as usize;
                    for c in 1..NC {
                        self.resume_fed_by(si, e, c);
                    }
                }
            }
        }
    }

    /// Whether this simulator runs port `p`'s node: always in a whole run;
    /// in a part, unless the port is another part's (not built, or the far
    /// end of a cut link, which only holds the packets crossing to here).
    pub(crate) fn owns_port(&self, p: u32) -> bool {
        let port = &self.ports[p as usize];
        !self.mode.cut || (port.built && port.cut != self.mode.part + 1)
    }

    pub(crate) fn reroute(&mut self) {
        self.routing = Routing::build(&self.topo, &up_ports(&self.node_ports, &self.ports), &self.port_base);
    }

    /// Takes one direction of a failing link down; (switch, ingress port,
    /// class) whose accounting was released are appended to `released`.
    fn port_down(&mut self, p: u32, released: &mut Vec<(usize, u32, usize)>) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        port.down = true;
        port.failed = now + 1;
        port.wire_gen = port.wire_gen.wrapping_add(1);
        // PFC: neither end can pause or resume the other any more
        for c in 0..NC {
            if port.paused & (1 << c) != 0 {
                port.paused_time += now - port.cls[c].paused_since;
                self.pause_log.push((p, port.cls[c].paused_since, now));
            }
            port.cls[c].xoff_egress = u32::MAX;
        }
        port.paused = 0;
        port.pause_out = 0;
        self.stats[p as usize].paused = 0;
        let pfc: Vec<u32> = port.pfc.iter(&self.pool).collect();
        let wire: Vec<u32> = self.on_wire(&self.ports[p as usize]).collect();
        let port = &mut self.ports[p as usize];
        (port.pfc, port.wire) = (Fifo::EMPTY, Fifo::EMPTY);
        // nothing ahead on the wire any more
        port.last_arrival = 0;
        for h in pfc {
            self.stats[p as usize].qlen -= self.pool.get(h).size as u64;
            self.pool.free(h);
        }
        for h in wire {
            self.drop_packet(p, h);
        }
        let is_switch = !self.ports[p as usize].is_host;
        let si = self.node_index[self.ports[p as usize].node as usize] as usize;
        for c in 0..NC {
            while let Some(h) = self.ports[p as usize].pop(c, &self.pool) {
                let size = self.pool.get(h).size as u64;
                self.ports[p as usize].cls[c].bytes -= size;
                self.stats[p as usize].qlen -= size;
                let ingress = self.pool.get(h).ingress;
                if is_switch && c != 0 && ingress != u32::MAX {
                    self.release(si, ingress, c, size);
                    released.push((si, ingress, c));
                }
                self.drop_packet(p, h);
            }
        }
    }

    /// Frees a packet lost at egress `p`, counting it as a drop there.
    pub(crate) fn drop_packet(&mut self, p: u32, h: u32) {
        let pkt = self.pool.get(h);
        // a trimmed packet's payload was counted as trimmed when it was cut
        if pkt.kind == PktKind::Data && pkt.trim == 0 {
            self.count.data_bytes_dropped += pkt.payload as u64;
            let (f, seq) = (pkt.flow, pkt.seq);
            self.count_loss(f, seq, crate::transport::Loss::Drop);
        }
        self.ports[p as usize].drops += 1;
        self.count.drops += 1;
        self.pool.free(h);
    }

    /// The packets on `port`'s wire, first to last.
    pub(crate) fn on_wire<'a>(&'a self, port: &Port) -> impl Iterator<Item = u32> + 'a {
        port.wire.iter(&self.pool)
    }

    /// Data payload bytes queued at an egress or on a wire now.
    pub(crate) fn data_in_flight(&self) -> u64 {
        let mut b = 0;
        for port in self.ports.iter().filter(|p| p.built) {
            for h in port.queued(&self.pool).chain(self.on_wire(port)) {
                let pkt = self.pool.get(h);
                if pkt.kind == PktKind::Data && pkt.trim == 0 {
                    b += pkt.payload as u64;
                }
            }
        }
        b
    }
}
