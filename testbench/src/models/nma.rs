//! Models of the management agent's function units (`hdl::mgmt`: distributor, register access,
//! active report, collector), cycle by cycle on their tickets (`hdl::mgmt::ticket`) and the
//! packet store ([`super::packet_store`]), built on the codec of `hdl::formats::mgmt`, and a
//! Rust model of a register file's request/response port; the EEPROM bridge and arbiter. The
//! beat-level functions ([`response_beat`], [`register_response_beat`], [`eeprom_response`])
//! give the response packet the codec's rule makes of a request, which the benches compare
//! with what the packer builds from the tickets.
use crate::models::i2c_eeprom::{EepCommand, EepResult};
use crate::models::packet_store::SLOT_ENTRIES;
use hdl::formats::mgmt::{
    self, hop_field, DestType, MgmtBeat, MgmtError, NmpType, ADDRESS0, ADDRESS1, COUNT, HOP_NUM,
    NMP_TYPE, W_BACKWARD, W_BACKWARD_HIGH, W_DATA0, W_DATA1, W_INFO,
};
use hdl::mgmt::eep_bridge::response_error;
use hdl::mgmt::ticket::{store_address, Echo, RequestTicket, ResponseTicket};
use hdl::regmap::RegError;
use std::collections::{BTreeMap, VecDeque};

/// The response the agent builds for `request` (the codec's response rule, written on words
/// so it also covers requests the codec would not decode): `dst` = the request's `src`, `src`
/// = `chip`, `w0` keeps VPs and transaction ID, `dest_type` NIC, the type and error given,
/// forward route = backward route with `current = hop_num`, backward empty, `w5..w7` given.
pub fn response_beat(
    request: &MgmtBeat,
    chip: u16,
    nmp_type: NmpType,
    error: MgmtError,
    payload: [u64; 3],
) -> MgmtBeat {
    let mask = |f: hdl::formats::field::Field| (f.max() as u64) << f.lsb;
    let w = &request.words;
    let info = w[W_INFO] & (mask(mgmt::SRC_VP) | mask(mgmt::DEST_VP) | mask(mgmt::TRANSACTION_ID));
    let info = mgmt::DEST_TYPE.set(info as u128, DestType::Nic.code() as u128);
    let info = NMP_TYPE.set(info, nmp_type.code() as u128);
    let info = mgmt::ERROR.set(info, error.code() as u128) as u64;
    let hops = |r: std::ops::Range<usize>| r.fold(0u64, |m, i| m | mask(hop_field(i)));
    let hop_num = HOP_NUM.get(w[W_BACKWARD] as u128);
    let forward = w[W_BACKWARD] & (mask(HOP_NUM) | hops(0..10));
    let forward = mgmt::CURRENT.set(forward as u128, hop_num) as u64;
    MgmtBeat {
        src: chip,
        dst: request.src,
        words: [
            info,
            forward,
            w[W_BACKWARD_HIGH] & hops(10..20),
            0,
            0,
            payload[0],
            payload[1],
            payload[2],
        ],
    }
}

/// The `nmp_type` code of a beat.
pub fn beat_type(b: &MgmtBeat) -> u8 {
    NMP_TYPE.get(b.words[W_INFO] as u128) as u8
}

/// Where the distributor sends a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Destination {
    /// Register unit (register requests, and every type the agent does not know, which the
    /// register unit refuses).
    Registers = 0,
    /// EEPROM unit.
    Eeprom = 1,
}

/// The distributor's output for ticket `t` (the ticket goes there unchanged).
pub fn distribute(t: &RequestTicket) -> Destination {
    match NmpType::from_code(t.nmp_type) {
        Some(NmpType::EepReadRequest | NmpType::EepWriteRequest) => Destination::Eeprom,
        _ => Destination::Registers,
    }
}

/// The distributor, cycle by cycle: register requests (and unknown types) pass straight
/// through (the input is taken when the register unit is ready), the EEPROM output has a
/// fall-through slot.
#[derive(Default)]
pub struct DistributorModel {
    /// The ticket held in the EEPROM output's slot.
    pub eeprom_slot: Option<RequestTicket>,
}

impl DistributorModel {
    /// `requests.ready` and each output's offer this cycle (index by [`Destination`]), for the
    /// offered request `input` and the outputs' `ready` (`taken[k]`).
    pub fn outputs(
        &self,
        input: Option<&RequestTicket>,
        taken: [bool; 2],
    ) -> (bool, [Option<RequestTicket>; 2]) {
        let mut outs = [None, self.eeprom_slot];
        let mut ready = false;
        if let Some(t) = input {
            match distribute(t) {
                Destination::Registers => {
                    ready = taken[0];
                    outs[0] = Some(*t);
                }
                Destination::Eeprom => {
                    ready = self.eeprom_slot.is_none();
                    if ready {
                        outs[1] = Some(*t);
                    }
                }
            }
        }
        (ready, outs)
    }
    /// The edge: `taken[k]` = output `k` is ready. Returns whether the input was taken.
    pub fn edge(&mut self, reset: bool, input: Option<&RequestTicket>, taken: [bool; 2]) -> bool {
        if reset {
            self.eeprom_slot = None;
            return false;
        }
        let (ready, outs) = self.outputs(input, taken);
        self.eeprom_slot = outs[1].filter(|_| !taken[1]);
        ready && input.is_some()
    }
}

/// A register of the port model.
#[derive(Clone, Copy, Debug)]
pub struct ModelRegister {
    /// Its value.
    pub value: u64,
    /// Writes are refused (read-only).
    pub read_only: bool,
}

/// A register file's request/response port, in Rust: registers at some addresses, others
/// unmapped; each access answered in order after a latency (at least 2 cycles, as the real
/// register file), `request.ready` and the latency chosen by the bench.
#[derive(Default)]
pub struct RegPortModel {
    /// The registers by address.
    pub registers: BTreeMap<u16, ModelRegister>,
    /// Answers in flight: (first cycle offered, data, error code).
    pub answers: VecDeque<(u64, u64, u8)>,
}

impl RegPortModel {
    /// The answer offered in `cycle`, if any.
    pub fn offered(&self, cycle: u64) -> Option<(u64, u8)> {
        self.answers
            .front()
            .filter(|a| a.0 <= cycle)
            .map(|a| (a.1, a.2))
    }
    /// An access taken in `cycle`, answered from `cycle + latency` (and after the one before).
    pub fn access(&mut self, cycle: u64, latency: u64, address: u16, write: bool, data: u64) {
        let (data, error) = match self.registers.get_mut(&address) {
            None => (0, RegError::Unmapped),
            Some(r) if write && r.read_only => (0, RegError::ReadOnly),
            Some(r) if write => {
                r.value = data;
                (0, RegError::None)
            }
            Some(r) => (r.value, RegError::None),
        };
        let due = self
            .answers
            .back()
            .map_or(0, |a| a.0 + 1)
            .max(cycle + latency);
        self.answers.push_back((due, data, error.code() as u8));
    }
    /// Reset: answers in flight are dropped (the register file shares the unit's reset).
    pub fn reset(&mut self) {
        self.answers.clear();
    }
}

/// What the register unit offers in a cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct RegAccessOutputs {
    /// The register access offered: (address, write, data).
    pub access: Option<(u16, bool, u64)>,
    /// The response offered.
    pub response: Option<ResponseTicket>,
    /// `requests.ready` (the request is consumed on this edge if `responses.ready`).
    pub consumed: bool,
    /// The answer written into the store: (address, data).
    pub answer: Option<(usize, u64)>,
}

/// The decoded register request of a beat: (write, count, addresses, data).
pub fn register_request(b: &MgmtBeat) -> (bool, u8, [u16; 2], [u64; 2]) {
    let t = RequestTicket::of(b, 0);
    let (write, count, address) = ticket_register_request(&t);
    (write, count, address, [b.words[W_DATA0], b.words[W_DATA1]])
}

/// The decoded register request of a ticket: (write, count, addresses).
pub fn ticket_register_request(t: &RequestTicket) -> (bool, u8, [u16; 2]) {
    let access = t.access as u128;
    (
        t.nmp_type == NmpType::RegWriteRequest.code(),
        COUNT.get(access) as u8,
        [
            (ADDRESS0.get(access) & 0x7fff) as u16,
            (ADDRESS1.get(access) & 0x7fff) as u16,
        ],
    )
}

/// The register unit's response to request `b` that needed `needed` accesses (0: refused
/// with `refusal`), whose answers were `values` and error codes `errors` (see
/// `hdl::mgmt::reg_access`): the packet, by the codec's rule.
pub fn register_response_beat(
    b: &MgmtBeat,
    chip: u16,
    needed: u8,
    refusal: MgmtError,
    values: [u64; 2],
    errors: [u8; 2],
) -> MgmtBeat {
    let (write, count, address, _) = register_request(b);
    let echo = COUNT.set(0, count as u128);
    let echo = ADDRESS0.set(echo, address[0] as u128);
    let echo = ADDRESS1.set(echo, address[1] as u128) as u64;
    let first_error = errors.iter().find(|&&e| e != 0).copied();
    let (t, error, payload) = if needed == 0 && refusal == MgmtError::UnknownType {
        // The payload of an unknown type has no known meaning: nothing is echoed.
        (NmpType::RegErrorResponse, refusal, [0, 0, 0])
    } else if needed == 0 {
        (NmpType::RegErrorResponse, refusal, [echo, 0, 0])
    } else if let Some(e) = first_error {
        let codes = errors[0] as u64 | (errors[1] as u64) << 8;
        (
            NmpType::RegErrorResponse,
            MgmtError::from_code(e).unwrap(),
            [echo, codes, 0],
        )
    } else if write {
        (NmpType::RegWriteResponse, MgmtError::None, [echo, 0, 0])
    } else {
        (
            NmpType::RegReadResponse,
            MgmtError::None,
            [echo, values[0], if count == 2 { values[1] } else { 0 }],
        )
    };
    response_beat(b, chip, t, error, payload)
}

/// The register unit's response ticket to request `t` that needed `needed` accesses (0:
/// refused with `refusal`) whose answers had error codes `errors`; a read's data is in the
/// store (written as the answers came).
pub fn register_response_ticket(
    t: &RequestTicket,
    needed: u8,
    refusal: MgmtError,
    errors: [u8; 2],
) -> ResponseTicket {
    let (write, count, _) = ticket_register_request(t);
    let first_error = errors.iter().find(|&&e| e != 0).copied();
    let mut r = ResponseTicket {
        slot: t.slot,
        echo: Echo::Registers,
        ..Default::default()
    };
    let error = |r: &mut ResponseTicket, e: MgmtError| {
        r.nmp_type = NmpType::RegErrorResponse.code();
        r.error = e.code();
    };
    if needed == 0 {
        error(&mut r, refusal);
        if refusal == MgmtError::UnknownType {
            r.echo = Echo::Nothing;
        }
    } else if let Some(e) = first_error {
        error(&mut r, MgmtError::from_code(e).unwrap());
        r.data = errors[0] as u64 | (errors[1] as u64) << 8;
    } else if write {
        r.nmp_type = NmpType::RegWriteResponse.code();
    } else {
        r.nmp_type = NmpType::RegReadResponse.code();
        r.w6_stored = true;
        r.w7_stored = count == 2;
    }
    r
}

/// The register unit, cycle by cycle (see `hdl::mgmt::reg_access`).
pub struct RegAccessModel {
    /// Address bits of the register file.
    pub address_bits: usize,
    issued: u8,
    answered: u8,
    errors: [u8; 2],
    /// The request was offered and not consumed in the previous cycle (a write's data is read).
    settled: bool,
}

impl RegAccessModel {
    /// A unit in front of a register file of `address_bits` address bits.
    pub fn new(address_bits: usize) -> Self {
        Self {
            address_bits,
            issued: 0,
            answered: 0,
            errors: [0; 2],
            settled: false,
        }
    }
    /// Accesses a request needs (0 if refused) and the refusal's error.
    pub fn needed(&self, t: &RequestTicket) -> (u8, MgmtError) {
        if !matches!(
            NmpType::from_code(t.nmp_type),
            Some(NmpType::RegReadRequest | NmpType::RegWriteRequest)
        ) {
            return (0, MgmtError::UnknownType);
        }
        let (_, count, address) = ticket_register_request(t);
        if count == 0 || count > 2 {
            return (0, MgmtError::BadCount);
        }
        if address[..count as usize]
            .iter()
            .any(|&a| a as u64 >= 1 << self.address_bits)
        {
            return (0, MgmtError::Unmapped);
        }
        (count, MgmtError::None)
    }
    /// The outputs this cycle for the offered request, its slot's entries in the store (the
    /// request's words) and the register answer.
    pub fn outputs(
        &self,
        input: Option<&RequestTicket>,
        entries: &[u64; SLOT_ENTRIES],
        answer: Option<(u64, u8)>,
        responses_ready: bool,
    ) -> RegAccessOutputs {
        let Some(t) = input else {
            return RegAccessOutputs {
                access: None,
                response: None,
                consumed: false,
                answer: None,
            };
        };
        let (write, _, address) = ticket_register_request(t);
        let (needed, refusal) = self.needed(t);
        let access = (self.issued < needed && (!write || self.settled)).then(|| {
            let i = self.issued as usize;
            (address[i], write, entries[W_DATA0 + i])
        });
        let (mut errors, mut answered) = (self.errors, self.answered);
        let answer_write = answer.map(|(d, e)| {
            errors[answered as usize] = e;
            let a = store_address(t.slot as usize, W_DATA0 + answered as usize);
            answered += 1;
            (a, d)
        });
        let response =
            (answered == needed).then(|| register_response_ticket(t, needed, refusal, errors));
        RegAccessOutputs {
            access,
            consumed: response.is_some() && responses_ready,
            response,
            answer: answer_write,
        }
    }
    /// The edge. Returns whether the request was consumed.
    pub fn edge(
        &mut self,
        reset: bool,
        input: Option<&RequestTicket>,
        entries: &[u64; SLOT_ENTRIES],
        answer: Option<(u64, u8)>,
        access_ready: bool,
        responses_ready: bool,
    ) -> bool {
        let o = self.outputs(input, entries, answer, responses_ready);
        if reset || o.consumed {
            *self = Self::new(self.address_bits);
            return o.consumed && !reset;
        }
        self.settled = input.is_some();
        if o.access.is_some() && access_ready {
            self.issued += 1;
        }
        if let Some((_, e)) = answer {
            self.errors[self.answered as usize] = e;
            self.answered += 1;
        }
        false
    }
}

/// The active report unit, cycle by cycle (see `hdl::mgmt::active_report`).
#[derive(Default)]
pub struct ActiveReportModel {
    previous: u64,
    pending: u64,
    /// The bits of the report on offer.
    pub offered: Option<u64>,
    transaction_id: u16,
    sent: bool,
}

/// The configuration of the active report unit.
#[derive(Clone, Copy, Debug)]
pub struct ReportConfig {
    /// Reporting enabled.
    pub enable: bool,
    /// Masked faults.
    pub mask: u64,
}

/// The ticket of a fault report carrying `bits` with transaction ID `id`.
pub fn report_ticket(bits: u64, id: u16) -> ResponseTicket {
    ResponseTicket {
        report: true,
        nmp_type: NmpType::FaultReport.code(),
        id,
        data: bits,
        ..Default::default()
    }
}

/// The packet of a fault report (what the packer makes of [`report_ticket`]): `dst` the
/// server, `src` the chip, `w0` with the transaction ID, the route, the bits in `w6`.
pub fn report_beat(bits: u64, id: u16, route: [u64; 2], dest: u16, chip: u16) -> MgmtBeat {
    let info = mgmt::DEST_TYPE.set(0, DestType::Nic.code() as u128);
    let info = NMP_TYPE.set(info, NmpType::FaultReport.code() as u128);
    let info = mgmt::TRANSACTION_ID.set(info, id as u128) as u64;
    MgmtBeat {
        src: chip,
        dst: dest,
        words: [info, route[0], route[1], 0, 0, 0, bits, 0],
    }
}

impl ActiveReportModel {
    /// The report ticket offered, and `reports_sent`.
    pub fn outputs(&self) -> (Option<ResponseTicket>, bool) {
        (
            self.offered
                .map(|bits| report_ticket(bits, self.transaction_id)),
            self.sent,
        )
    }
    /// The edge with fault levels `faults` and `ready`; returns the events of this cycle and
    /// the bits of the report taken, if one was.
    pub fn edge(
        &mut self,
        reset: bool,
        faults: u64,
        c: &ReportConfig,
        ready: bool,
    ) -> (u64, Option<u64>) {
        if reset {
            *self = Self::default();
            return (0, None);
        }
        let rising = if c.enable {
            faults & !self.previous & !c.mask
        } else {
            0
        };
        self.previous = faults;
        let taken = self.offered.filter(|_| ready);
        let fresh = match self.offered {
            Some(bits) if !ready => rising & !bits,
            _ => rising,
        };
        let collected = self.pending | fresh;
        if self.offered.is_none() || taken.is_some() {
            self.offered = (collected != 0).then_some(collected);
            self.pending = 0;
        } else {
            self.pending = collected;
        }
        if taken.is_some() {
            self.transaction_id = self.transaction_id.wrapping_add(1);
        }
        self.sent = taken.is_some();
        (rising, taken)
    }
}

/// The collector, cycle by cycle: a ticket register that, on every edge where it is empty or
/// its ticket is taken, loads the first offered input in the fixed priority `responses, eeprom,
/// reports` (that input's `ready` is high in that cycle, the others' low).
#[derive(Default)]
pub struct CollectorModel<T> {
    /// The ticket offered on `beats`.
    pub held: Option<T>,
}

impl<T: Copy> CollectorModel<T> {
    /// The input taken this cycle if `beats_ready` (the first offered, if the register can
    /// load); its `ready` is high, the others' low.
    pub fn loading(
        &self,
        reset: bool,
        offered: &[Option<T>; 3],
        beats_ready: bool,
    ) -> Option<usize> {
        if reset || (self.held.is_some() && !beats_ready) {
            return None;
        }
        offered.iter().position(|o| o.is_some())
    }
    /// The edge; returns the input taken.
    pub fn edge(
        &mut self,
        reset: bool,
        offered: &[Option<T>; 3],
        beats_ready: bool,
    ) -> Option<usize> {
        let k = self.loading(reset, offered, beats_ready);
        if reset {
            self.held = None;
        } else if self.held.is_none() || beats_ready {
            self.held = k.and_then(|k| offered[k]);
        }
        k
    }
}

/// The EEPROM command of an EEPROM request beat, as `hdl::mgmt::EepBridge` decodes it: write
/// for type 0x13, `count` and `address0` of `w5`, the bytes of `w6`.
pub fn eeprom_command(b: &MgmtBeat) -> EepCommand {
    eeprom_ticket_command(&RequestTicket::of(b, 0), b.words[W_DATA0])
}

/// The EEPROM command of request ticket `t` whose `w6` (in the store) is `w6`.
pub fn eeprom_ticket_command(t: &RequestTicket, w6: u64) -> EepCommand {
    let access = t.access as u128;
    EepCommand {
        write: t.nmp_type == NmpType::EepWriteRequest.code(),
        address: ADDRESS0.get(access) as u32,
        count: COUNT.get(access) as u32,
        data: std::array::from_fn(|i| (w6 >> (8 * i)) as u8),
    }
}

/// The response the agent sends to EEPROM request `b` whose command had result `r`: `w5` =
/// the request's `count` and `address0`; read: type 0x12 with the bytes in `w6`; write: 0x14;
/// an error: 0x15 with the error of `hdl::mgmt::eep_bridge::EEP_ERROR_RESPONSES`, `w6` zero.
pub fn eeprom_response(b: &MgmtBeat, chip: u16, r: &EepResult) -> MgmtBeat {
    let c = eeprom_command(b);
    let echo = ADDRESS0.set(COUNT.set(0, c.count as u128), c.address as u128) as u64;
    let t = eeprom_response_ticket(&RequestTicket::of(b, 0), r);
    response_beat(
        b,
        chip,
        NmpType::from_code(t.nmp_type).expect("a response type"),
        MgmtError::from_code(t.error).expect("an error code"),
        [echo, t.data, 0],
    )
}

/// The response ticket of EEPROM request `t` whose command had result `r`.
pub fn eeprom_response_ticket(t: &RequestTicket, r: &EepResult) -> ResponseTicket {
    let error = response_error(r.error);
    let bytes = r
        .data
        .iter()
        .enumerate()
        .fold(0u64, |d, (i, &x)| d | (x as u64) << (8 * i));
    let write = t.nmp_type == NmpType::EepWriteRequest.code();
    let (nmp_type, data) = if error != MgmtError::None {
        (NmpType::EepErrorResponse, 0)
    } else if write {
        (NmpType::EepWriteResponse, 0)
    } else {
        (NmpType::EepReadResponse, bytes)
    };
    ResponseTicket {
        slot: t.slot,
        nmp_type: nmp_type.code(),
        error: error.code(),
        echo: Echo::Eeprom,
        data,
        ..Default::default()
    }
}

/// What the EEPROM bridge offers in a cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct EepBridgeOutputs {
    /// The command offered.
    pub command: Option<EepCommand>,
    /// The response offered.
    pub response: Option<ResponseTicket>,
    /// `result.ready`.
    pub result_ready: bool,
    /// The request is consumed on this edge (with its response).
    pub consumed: bool,
}

/// The EEPROM bridge, cycle by cycle (see `hdl::mgmt::eep_bridge`): the request's command
/// offered (from the cycle after the request, its bytes read from the store) until taken, then
/// the response offered with the result and taken with it.
#[derive(Clone, Debug, Default)]
pub struct EepBridgeModel {
    /// The command of the request on offer was taken.
    pub issued: bool,
    /// The request was offered and not consumed in the previous cycle.
    settled: bool,
}

impl EepBridgeModel {
    /// The outputs for the offered request `input` (its `w6` in the store), the offered result
    /// and `responses.ready`.
    pub fn outputs(
        &self,
        input: Option<&RequestTicket>,
        w6: u64,
        result: Option<&EepResult>,
        responses_ready: bool,
    ) -> EepBridgeOutputs {
        let command = input
            .filter(|_| !self.issued && self.settled)
            .map(|t| eeprom_ticket_command(t, w6));
        let response = match (input, result) {
            (Some(t), Some(r)) if self.issued => Some(eeprom_response_ticket(t, r)),
            _ => None,
        };
        EepBridgeOutputs {
            command,
            result_ready: self.issued && responses_ready,
            consumed: response.is_some() && responses_ready,
            response,
        }
    }
    /// The edge; returns whether the request was consumed.
    pub fn edge(
        &mut self,
        reset: bool,
        input: Option<&RequestTicket>,
        w6: u64,
        result: Option<&EepResult>,
        command_ready: bool,
        responses_ready: bool,
    ) -> bool {
        let o = self.outputs(input, w6, result, responses_ready);
        if reset {
            *self = Self::default();
            return false;
        }
        if o.command.is_some() && command_ready {
            self.issued = true;
        }
        self.settled = input.is_some() && !o.consumed;
        if o.consumed {
            self.issued = false;
        }
        o.consumed
    }
}

/// What the EEPROM arbiter offers in a cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct EepArbiterOutputs {
    /// The command passed on.
    pub command: Option<EepCommand>,
    /// `first_command.ready`, `second_command.ready`.
    pub command_readies: [bool; 2],
    /// `first_result.valid`, `second_result.valid`.
    pub result_valids: [bool; 2],
    /// `result.ready`.
    pub result_ready: bool,
}

/// The EEPROM arbiter, cycle by cycle (see `hdl::mgmt::eep_arbiter`): input 0 first, the
/// choice held while the command waits, one command outstanding, its result to its issuer.
#[derive(Clone, Debug, Default)]
pub struct EepArbiterModel {
    busy: bool,
    owner: usize,
    locked: Option<usize>,
}

impl EepArbiterModel {
    /// The input chosen this cycle.
    pub fn choice(&self, offers: [Option<&EepCommand>; 2]) -> usize {
        self.locked
            .unwrap_or(if offers[0].is_some() { 0 } else { 1 })
    }
    /// The outputs for the requesters' offers and readies and the unit's result and ready.
    pub fn outputs(
        &self,
        offers: [Option<&EepCommand>; 2],
        command_ready: bool,
        result_valid: bool,
        result_readies: [bool; 2],
    ) -> EepArbiterOutputs {
        let choice = self.choice(offers);
        let mut o = EepArbiterOutputs {
            command: if self.busy {
                None
            } else {
                offers[choice].cloned()
            },
            command_readies: [false; 2],
            result_valids: [false; 2],
            result_ready: self.busy && result_readies[self.owner],
        };
        o.command_readies[choice] = !self.busy && command_ready;
        o.result_valids[self.owner] = self.busy && result_valid;
        o
    }
    /// The edge; returns the input whose command was passed on, if any.
    pub fn edge(
        &mut self,
        reset: bool,
        offers: [Option<&EepCommand>; 2],
        command_ready: bool,
        result_valid: bool,
        result_readies: [bool; 2],
    ) -> Option<usize> {
        if reset {
            *self = Self::default();
            return None;
        }
        let choice = self.choice(offers);
        let o = self.outputs(offers, command_ready, result_valid, result_readies);
        if result_valid && o.result_ready {
            self.busy = false;
        }
        self.locked = (o.command.is_some() && !command_ready).then_some(choice);
        if o.command.is_some() && command_ready {
            self.busy = true;
            self.owner = choice;
            return Some(choice);
        }
        None
    }
}

/// The slot pool (`hdl::mgmt::SlotPool`), cycle by cycle: a busy bit per slot; the free slot
/// offered is the highest-numbered free one.
#[derive(Clone, Debug, Default)]
pub struct SlotPoolModel {
    /// Bit `k`: slot `k` holds a request.
    pub busy: u8,
}

impl SlotPoolModel {
    /// `lease.free_slot` (meaningful while [`Self::available`]).
    pub fn free_slot(&self) -> u8 {
        (0..hdl::mgmt::ticket::STORE_SLOTS as u8)
            .rev()
            .find(|&k| self.busy >> k & 1 == 0)
            .unwrap_or(0)
    }
    /// `lease.available`.
    pub fn available(&self) -> bool {
        self.busy != (1 << hdl::mgmt::ticket::STORE_SLOTS) - 1
    }
    /// The edge: `claim` takes the free slot; `given_back` and `sent` free theirs.
    pub fn edge(&mut self, reset: bool, claim: bool, given_back: Option<u8>, sent: Option<u8>) {
        if reset {
            self.busy = 0;
            return;
        }
        if claim {
            self.busy |= 1 << self.free_slot();
        }
        for s in [given_back, sent].into_iter().flatten() {
            self.busy &= !(1 << s);
        }
    }
}
