//! The management client (issue 12, item 5): what a management server does to reach the agents
//! of the fabric's chips through the data network. It builds a request (register read or write
//! of one or two registers, EEPROM read or write of one to six bytes) with a source route, hands
//! its flits to whatever carries them, matches each response by TransactionID, retries a request
//! whose response does not come in time, gives up after a number of retries, and collects the
//! fault reports the agents send on their own.
//!
//! The client is a state machine with no clock of its own: the caller tells it the time
//! (cycles of a simulation, ticks of a real server) and moves the flits, so the same client runs
//! inside a Verilator bench with hundreds of requests in flight ([`MgmtClient::submit`],
//! [`MgmtClient::next_packet`], [`MgmtClient::receive`], [`MgmtClient::completions`]) and behind a
//! blocking call ([`MgmtClient::transact`] over a [`MgmtLink`]).
//!
//! **Retries** resend the same packet with the same TransactionID. A register or EEPROM write
//! is idempotent, so a write whose response was lost and that is carried out twice leaves the
//! same state; a response that arrives after its request completed (the first copy answered
//! late) is counted in [`ClientStats::late`] and otherwise ignored. TransactionIDs are 16 bits,
//! allocated in sequence, skipping those in flight, so a late response can only be mistaken for
//! a new request's after 65,536 further requests.
use hdl::formats::mgmt::{
    DestType, MgmtError, MgmtPacket, MgmtPayload, NmpType, Route, MAX_EEPROM_BYTES, MAX_REGISTERS,
};
use std::collections::{BTreeMap, VecDeque};

/// What a request asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    /// Read one or two registers.
    ReadRegisters(Vec<u16>),
    /// Write one or two registers (address, value).
    WriteRegisters(Vec<(u16, u64)>),
    /// Read `count` (1..=6) EEPROM bytes from `address`.
    ReadEeprom {
        /// First byte's address.
        address: u16,
        /// Bytes to read.
        count: u8,
    },
    /// Write bytes (1..=6) to the EEPROM from `address`.
    WriteEeprom {
        /// First byte's address.
        address: u16,
        /// Bytes to write.
        bytes: Vec<u8>,
    },
}

impl Operation {
    /// The request type and payload; `None` if the operation is outside what one request carries
    /// (no register or more than two, zero or more than six bytes).
    pub fn request(&self) -> Option<(NmpType, MgmtPayload)> {
        match self {
            Operation::ReadRegisters(a) => {
                let n = a.len();
                (1..=MAX_REGISTERS as usize).contains(&n).then(|| {
                    let address = [a[0], if n > 1 { a[1] } else { 0 }];
                    (
                        NmpType::RegReadRequest,
                        MgmtPayload::Registers {
                            count: n as u8,
                            address,
                            data: [0; 2],
                        },
                    )
                })
            }
            Operation::WriteRegisters(w) => {
                let n = w.len();
                (1..=MAX_REGISTERS as usize).contains(&n).then(|| {
                    let second = w.get(1).copied().unwrap_or((0, 0));
                    (
                        NmpType::RegWriteRequest,
                        MgmtPayload::Registers {
                            count: n as u8,
                            address: [w[0].0, second.0],
                            data: [w[0].1, second.1],
                        },
                    )
                })
            }
            Operation::ReadEeprom { address, count } => {
                (1..=MAX_EEPROM_BYTES).contains(count).then_some((
                    NmpType::EepReadRequest,
                    MgmtPayload::Eeprom {
                        count: *count,
                        address: *address,
                        bytes: [0; 6],
                    },
                ))
            }
            Operation::WriteEeprom { address, bytes } => {
                let n = bytes.len();
                (1..=MAX_EEPROM_BYTES as usize).contains(&n).then(|| {
                    let mut b = [0; 6];
                    b[..n].copy_from_slice(bytes);
                    (
                        NmpType::EepWriteRequest,
                        MgmtPayload::Eeprom {
                            count: n as u8,
                            address: *address,
                            bytes: b,
                        },
                    )
                })
            }
        }
    }
}

/// Where a request goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The chip's ID ([`hdl::formats::mgmt::UNSET_ID`] for a chip that has none yet).
    pub chip_id: u16,
    /// The chip's type.
    pub chip_type: DestType,
    /// The client's port of entry into the fabric (which of its links sends the request).
    pub entry_port: u8,
    /// Output ports of the routers on the way, first router first (empty: the chip the client
    /// is attached to).
    pub path: Vec<u8>,
}

/// What a completed request gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The registers' values, in request order.
    Registers(Vec<u64>),
    /// The write was carried out.
    Written,
    /// The bytes read.
    Bytes(Vec<u8>),
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientError {
    /// The request cannot be carried by one packet (see [`Operation::request`]).
    Invalid,
    /// The agent answered with an error response naming this reason.
    Remote(MgmtError),
    /// No response after every retry.
    TimedOut,
    /// The response does not match its request (type family, count, responder).
    Mismatch(String),
}

/// One finished request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The ticket [`MgmtClient::submit`] returned.
    pub ticket: u64,
    /// Its TransactionID.
    pub transaction_id: u16,
    /// What was asked.
    pub operation: Operation,
    /// The outcome.
    pub outcome: Result<Reply, ClientError>,
    /// Times the request was sent (1 + retries).
    pub sends: u32,
    /// Time from its first send to its completion.
    pub latency: u64,
}

/// A fault report as it arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultReport {
    /// The reporting chip's ID.
    pub chip_id: u16,
    /// The fault bits the report carries.
    pub bits: u64,
    /// The report's TransactionID (the agent's running count).
    pub transaction_id: u16,
    /// When it arrived.
    pub time: u64,
}

/// Client settings.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The client's node ID (the requests' `src`, the responses' DestID).
    pub node_id: u16,
    /// The VC management packets travel on (`network.mgmt_vc`).
    pub mgmt_vc: u8,
    /// The client's VP, sent as SrcVP and DestVP.
    pub vp: u8,
    /// Time after a send at which the request is sent again.
    pub timeout: u64,
    /// Sends after the first before the request fails with [`ClientError::TimedOut`].
    pub retries: u32,
}

/// Counts kept by the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Packets handed out (first sends and retries).
    pub sent: u64,
    /// Retries among them.
    pub retried: u64,
    /// Responses matched to a request in flight.
    pub matched: u64,
    /// Responses for no request in flight (a late answer to a retried request).
    pub late: u64,
    /// Packets that could not be decoded or were not for this client.
    pub malformed: u64,
    /// Requests that failed after every retry.
    pub timed_out: u64,
}

struct InFlight {
    ticket: u64,
    target: Target,
    operation: Operation,
    packet: MgmtPacket,
    first_sent: u64,
    last_sent: u64,
    sends: u32,
}

/// The client; see the module documentation.
pub struct MgmtClient {
    config: ClientConfig,
    next_ticket: u64,
    next_transaction: u16,
    /// By TransactionID.
    in_flight: BTreeMap<u16, InFlight>,
    /// TransactionIDs to send, in order (first sends and retries).
    to_send: VecDeque<u16>,
    done: Vec<Completion>,
    faults: Vec<FaultReport>,
    stats: ClientStats,
}

impl MgmtClient {
    /// A client with `config`.
    pub fn new(config: ClientConfig) -> Self {
        MgmtClient {
            config,
            next_ticket: 0,
            next_transaction: 0,
            in_flight: BTreeMap::new(),
            to_send: VecDeque::new(),
            done: vec![],
            faults: vec![],
            stats: ClientStats::default(),
        }
    }

    /// The request packet of `operation` for `target` with `transaction_id`.
    pub fn packet(
        &self,
        target: &Target,
        operation: &Operation,
        transaction_id: u16,
    ) -> Option<MgmtPacket> {
        let (nmp_type, payload) = operation.request()?;
        Some(MgmtPacket {
            dest_id: target.chip_id,
            src: self.config.node_id,
            vc: self.config.mgmt_vc,
            dest_type: target.chip_type,
            src_vp: self.config.vp,
            dest_vp: self.config.vp,
            transaction_id,
            nmp_type,
            error: MgmtError::None,
            forward: Route::from_path(&target.path),
            backward: Route::default(),
            payload,
        })
    }

    /// Queues a request; returns its ticket. An operation one packet cannot carry completes at
    /// once with [`ClientError::Invalid`]. Fails (returns `None`) only when all 65,536
    /// TransactionIDs are in flight.
    pub fn submit(&mut self, target: Target, operation: Operation) -> Option<u64> {
        if self.in_flight.len() >= 1 << 16 {
            return None;
        }
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        while self.in_flight.contains_key(&self.next_transaction) {
            self.next_transaction = self.next_transaction.wrapping_add(1);
        }
        let transaction_id = self.next_transaction;
        self.next_transaction = self.next_transaction.wrapping_add(1);
        let Some(packet) = self.packet(&target, &operation, transaction_id) else {
            self.done.push(Completion {
                ticket,
                transaction_id,
                operation,
                outcome: Err(ClientError::Invalid),
                sends: 0,
                latency: 0,
            });
            return Some(ticket);
        };
        self.in_flight.insert(
            transaction_id,
            InFlight {
                ticket,
                target,
                operation,
                packet,
                first_sent: 0,
                last_sent: 0,
                sends: 0,
            },
        );
        self.to_send.push_back(transaction_id);
        Some(ticket)
    }

    /// The next packet to send at time `now`, with the port it enters the fabric on: first sends
    /// in submission order, then retries of requests whose timeout has passed.
    pub fn next_packet(&mut self, now: u64) -> Option<(u8, Vec<u128>)> {
        self.expire(now);
        while let Some(tid) = self.to_send.pop_front() {
            let Some(f) = self.in_flight.get_mut(&tid) else {
                continue;
            };
            if f.sends == 0 {
                f.first_sent = now;
            } else {
                self.stats.retried += 1;
            }
            f.sends += 1;
            f.last_sent = now;
            self.stats.sent += 1;
            return Some((f.target.entry_port, f.packet.pack()));
        }
        None
    }

    /// Queues retries of requests not answered `timeout` after their last send, and fails those
    /// that have used every retry.
    fn expire(&mut self, now: u64) {
        let due: Vec<u16> = self
            .in_flight
            .iter()
            .filter(|(tid, f)| {
                f.sends > 0
                    && now >= f.last_sent + self.config.timeout
                    && !self.to_send.contains(tid)
            })
            .map(|(&tid, _)| tid)
            .collect();
        for tid in due {
            if self.in_flight[&tid].sends > self.config.retries {
                let f = self.in_flight.remove(&tid).expect("due request in flight");
                self.stats.timed_out += 1;
                self.finish(f, tid, now, Err(ClientError::TimedOut));
            } else {
                self.to_send.push_back(tid);
            }
        }
    }

    fn finish(&mut self, f: InFlight, tid: u16, now: u64, outcome: Result<Reply, ClientError>) {
        self.done.push(Completion {
            ticket: f.ticket,
            transaction_id: tid,
            operation: f.operation,
            outcome,
            sends: f.sends,
            latency: now - f.first_sent,
        });
    }

    /// A packet that arrived at time `now` (its flits, head to tail): a response completes its
    /// request, a fault report is collected, anything else is counted.
    pub fn receive(&mut self, now: u64, flits: &[u128]) {
        let Ok(p) = MgmtPacket::unpack(flits) else {
            self.stats.malformed += 1;
            return;
        };
        if p.dest_id != self.config.node_id || p.nmp_type.is_request() {
            self.stats.malformed += 1;
            return;
        }
        if let MgmtPayload::Fault { bits } = p.payload {
            self.faults.push(FaultReport {
                chip_id: p.src,
                bits,
                transaction_id: p.transaction_id,
                time: now,
            });
            return;
        }
        let Some(f) = self.in_flight.remove(&p.transaction_id) else {
            self.stats.late += 1;
            return;
        };
        self.stats.matched += 1;
        self.to_send.retain(|&t| t != p.transaction_id);
        let outcome = Self::reply(&f, &p);
        self.finish(f, p.transaction_id, now, outcome);
    }

    /// The outcome a response gives its request.
    fn reply(f: &InFlight, p: &MgmtPacket) -> Result<Reply, ClientError> {
        let asked = f.packet.nmp_type;
        if p.nmp_type.family() != asked.family() {
            return Err(ClientError::Mismatch(format!(
                "{:?} answered by {:?}",
                asked, p.nmp_type
            )));
        }
        if p.nmp_type.is_error_response() {
            return Err(ClientError::Remote(p.error));
        }
        if Some(p.nmp_type) != asked.response(true) {
            return Err(ClientError::Mismatch(format!(
                "{:?} answered by {:?}",
                asked, p.nmp_type
            )));
        }
        if f.target.chip_id != hdl::formats::mgmt::UNSET_ID && p.src != f.target.chip_id {
            return Err(ClientError::Mismatch(format!(
                "chip {:#x} asked, chip {:#x} answered",
                f.target.chip_id, p.src
            )));
        }
        match (&f.operation, p.payload) {
            (Operation::ReadRegisters(a), MgmtPayload::Registers { count, data, .. })
                if count as usize == a.len() =>
            {
                Ok(Reply::Registers(data[..a.len()].to_vec()))
            }
            (Operation::WriteRegisters(_), MgmtPayload::Registers { .. })
            | (Operation::WriteEeprom { .. }, MgmtPayload::Eeprom { .. }) => Ok(Reply::Written),
            (
                Operation::ReadEeprom { count, .. },
                MgmtPayload::Eeprom {
                    bytes, count: n, ..
                },
            ) if n == *count => Ok(Reply::Bytes(bytes[..*count as usize].to_vec())),
            (op, payload) => Err(ClientError::Mismatch(format!(
                "{op:?} answered with {payload:?}"
            ))),
        }
    }

    /// Completions since the last call, in completion order.
    pub fn completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.done)
    }

    /// Fault reports since the last call, in arrival order.
    pub fn faults(&mut self) -> Vec<FaultReport> {
        std::mem::take(&mut self.faults)
    }

    /// Requests submitted and not yet completed.
    pub fn pending(&self) -> usize {
        self.in_flight.len()
    }

    /// The client's counts.
    pub fn stats(&self) -> ClientStats {
        self.stats
    }

    /// Sends `operation` to `target` over `link` and waits for its outcome (retries included);
    /// fault reports that arrive meanwhile are kept for [`MgmtClient::faults`].
    pub fn transact(
        &mut self,
        link: &mut impl MgmtLink,
        target: Target,
        operation: Operation,
    ) -> Result<Reply, ClientError> {
        let ticket = self
            .submit(target, operation)
            .ok_or(ClientError::Mismatch("no TransactionID free".into()))?;
        loop {
            if let Some(i) = self.done.iter().position(|c| c.ticket == ticket) {
                return self.done.remove(i).outcome;
            }
            let now = link.now();
            if let Some((port, flits)) = self.next_packet(now) {
                link.send(port, &flits);
            }
            while let Some(flits) = link.receive() {
                self.receive(link.now(), &flits);
            }
            link.wait();
        }
    }
}

/// What carries a client's packets: a simulated fabric or a real server's network port.
pub trait MgmtLink {
    /// The time now (the unit of [`ClientConfig::timeout`]).
    fn now(&self) -> u64;
    /// Sends a packet's flits into the fabric through the client's port `port`.
    fn send(&mut self, port: u8, flits: &[u128]);
    /// A whole packet that has arrived for the client, if any.
    fn receive(&mut self) -> Option<Vec<u128>>;
    /// Lets time pass (a simulation runs some cycles).
    fn wait(&mut self);
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::formats::mgmt::Hop;

    /// A chip attached directly to the client, answering in Rust with the codec: registers hold
    /// their address times 3 until written; one request in `drop_every` is lost.
    struct Loopback {
        time: u64,
        chip: u16,
        registers: BTreeMap<u16, u64>,
        inbox: VecDeque<Vec<u128>>,
        arrivals: u64,
        drop_every: u64,
    }

    impl MgmtLink for Loopback {
        fn now(&self) -> u64 {
            self.time
        }
        fn send(&mut self, port: u8, flits: &[u128]) {
            self.arrivals += 1;
            if self.drop_every > 0 && self.arrivals.is_multiple_of(self.drop_every) {
                return;
            }
            let mut p = MgmtPacket::unpack(flits).unwrap();
            assert_eq!(p.take_hop(port), Hop::Arrived);
            let payload = match p.payload {
                MgmtPayload::Registers {
                    count,
                    address,
                    data,
                } => {
                    let mut out = [0; 2];
                    for i in 0..count as usize {
                        if p.nmp_type == NmpType::RegWriteRequest {
                            self.registers.insert(address[i], data[i]);
                        } else {
                            out[i] = *self
                                .registers
                                .get(&address[i])
                                .unwrap_or(&(address[i] as u64 * 3));
                        }
                    }
                    MgmtPayload::Registers {
                        count,
                        address,
                        data: out,
                    }
                }
                other => other,
            };
            let r = MgmtPacket::response_to(&p, self.chip, MgmtError::None, payload).unwrap();
            self.inbox.push_back(r.pack());
        }
        fn receive(&mut self) -> Option<Vec<u128>> {
            self.inbox.pop_front()
        }
        fn wait(&mut self) {
            self.time += 1;
        }
    }

    fn client(retries: u32) -> MgmtClient {
        MgmtClient::new(ClientConfig {
            node_id: 0x42,
            mgmt_vc: 1,
            vp: 0,
            timeout: 10,
            retries,
        })
    }

    fn target() -> Target {
        Target {
            chip_id: 7,
            chip_type: DestType::Nrc,
            entry_port: 3,
            path: vec![],
        }
    }

    fn link(drop_every: u64) -> Loopback {
        Loopback {
            time: 0,
            chip: 7,
            registers: BTreeMap::new(),
            inbox: VecDeque::new(),
            arrivals: 0,
            drop_every,
        }
    }

    #[test]
    fn reads_and_writes_through_a_loopback_chip() {
        let (mut c, mut l) = (client(0), link(0));
        let r = c.transact(&mut l, target(), Operation::ReadRegisters(vec![5, 6]));
        assert_eq!(r, Ok(Reply::Registers(vec![15, 18])));
        let w = c.transact(&mut l, target(), Operation::WriteRegisters(vec![(5, 99)]));
        assert_eq!(w, Ok(Reply::Written));
        let r = c.transact(&mut l, target(), Operation::ReadRegisters(vec![5]));
        assert_eq!(r, Ok(Reply::Registers(vec![99])));
        assert_eq!(
            c.transact(&mut l, target(), Operation::ReadRegisters(vec![])),
            Err(ClientError::Invalid)
        );
    }

    #[test]
    fn a_lost_request_is_retried_and_an_unanswered_one_times_out() {
        let (mut c, mut l) = (client(2), link(2));
        // Every second arrival is lost: the first read goes through, the second is retried.
        assert!(c
            .transact(&mut l, target(), Operation::ReadRegisters(vec![1]))
            .is_ok());
        assert!(c
            .transact(&mut l, target(), Operation::ReadRegisters(vec![1]))
            .is_ok());
        assert_eq!(c.stats().retried, 1);
        let (mut c, mut l) = (client(1), link(1));
        assert_eq!(
            c.transact(&mut l, target(), Operation::ReadRegisters(vec![1])),
            Err(ClientError::TimedOut)
        );
        assert_eq!((c.stats().sent, c.stats().timed_out), (2, 1));
    }
}
