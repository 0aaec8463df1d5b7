//! Models of the management agent's function units (`hdl::mgmt`: distributor, register access,
//! active report, collector), cycle by cycle, built on the codec of `hdl::formats::mgmt`, and
//! a Rust model of a register file's request/response port; the EEPROM bridge and arbiter.
use crate::models::i2c_eeprom::{EepCommand, EepResult};
use hdl::formats::mgmt::{
    self, hop_field, DestType, MgmtBeat, MgmtError, NmpType, ADDRESS0, ADDRESS1, COUNT, HOP_NUM,
    NMP_TYPE, W_ACCESS, W_BACKWARD, W_BACKWARD_HIGH, W_DATA0, W_DATA1, W_INFO,
};
use hdl::mgmt::eep_bridge::response_error;
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

/// Where the distributor sends a beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Destination {
    /// Register unit (register requests, and every type the agent does not know, which the
    /// register unit refuses).
    Registers = 0,
    /// EEPROM unit.
    Eeprom = 1,
}

/// The distributor's output for `b` (the beat goes there unchanged).
pub fn distribute(b: &MgmtBeat) -> Destination {
    match NmpType::from_code(beat_type(b)) {
        Some(NmpType::EepReadRequest | NmpType::EepWriteRequest) => Destination::Eeprom,
        _ => Destination::Registers,
    }
}

/// The distributor, cycle by cycle: register requests (and unknown types) pass straight
/// through (the input is taken when the register unit is ready), the EEPROM output has a
/// fall-through slot.
#[derive(Default)]
pub struct DistributorModel {
    /// The beat held in the EEPROM output's slot.
    pub eeprom_slot: Option<MgmtBeat>,
}

impl DistributorModel {
    /// `requests.ready` and each output's offer this cycle (index by [`Destination`]), for the
    /// offered request `input` and the outputs' `ready` (`taken[k]`).
    pub fn outputs(
        &self,
        input: Option<&MgmtBeat>,
        taken: [bool; 2],
    ) -> (bool, [Option<MgmtBeat>; 2]) {
        let mut outs = [None, self.eeprom_slot];
        let mut ready = false;
        if let Some(b) = input {
            match distribute(b) {
                Destination::Registers => {
                    ready = taken[0];
                    outs[0] = Some(*b);
                }
                Destination::Eeprom => {
                    ready = self.eeprom_slot.is_none();
                    if ready {
                        outs[1] = Some(*b);
                    }
                }
            }
        }
        (ready, outs)
    }
    /// The edge: `taken[k]` = output `k` is ready. Returns whether the input was taken.
    pub fn edge(&mut self, reset: bool, input: Option<&MgmtBeat>, taken: [bool; 2]) -> bool {
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
    pub response: Option<MgmtBeat>,
    /// `requests.ready` (the request is consumed on this edge if `responses.ready`).
    pub consumed: bool,
}

/// The decoded register request of a beat: (write, count, addresses, data).
pub fn register_request(b: &MgmtBeat) -> (bool, u8, [u16; 2], [u64; 2]) {
    let access = b.words[W_ACCESS] as u128;
    (
        beat_type(b) == NmpType::RegWriteRequest.code(),
        COUNT.get(access) as u8,
        [
            (ADDRESS0.get(access) & 0x7fff) as u16,
            (ADDRESS1.get(access) & 0x7fff) as u16,
        ],
        [b.words[W_DATA0], b.words[W_DATA1]],
    )
}

/// The register unit's response to request `b` that needed `needed` accesses (0: refused
/// with `refusal`), whose answers were `values` and error codes `errors` (see
/// `hdl::mgmt::reg_access`).
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
            [echo, values[0], values[1]],
        )
    };
    response_beat(b, chip, t, error, payload)
}

/// The register unit, cycle by cycle (see `hdl::mgmt::reg_access`).
pub struct RegAccessModel {
    /// Address bits of the register file.
    pub address_bits: usize,
    issued: u8,
    answered: u8,
    values: [u64; 2],
    errors: [u8; 2],
}

impl RegAccessModel {
    /// A unit in front of a register file of `address_bits` address bits.
    pub fn new(address_bits: usize) -> Self {
        Self {
            address_bits,
            issued: 0,
            answered: 0,
            values: [0; 2],
            errors: [0; 2],
        }
    }
    /// Accesses a request needs (0 if refused) and the refusal's error.
    pub fn needed(&self, b: &MgmtBeat) -> (u8, MgmtError) {
        if !matches!(
            NmpType::from_code(beat_type(b)),
            Some(NmpType::RegReadRequest | NmpType::RegWriteRequest)
        ) {
            return (0, MgmtError::UnknownType);
        }
        let (_, count, address, _) = register_request(b);
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
    /// The outputs this cycle for the offered request and register answer.
    pub fn outputs(
        &self,
        input: Option<&MgmtBeat>,
        chip: u16,
        answer: Option<(u64, u8)>,
        responses_ready: bool,
    ) -> RegAccessOutputs {
        let Some(b) = input else {
            return RegAccessOutputs {
                access: None,
                response: None,
                consumed: false,
            };
        };
        let (write, _, address, data) = register_request(b);
        let (needed, refusal) = self.needed(b);
        let access = (self.issued < needed).then(|| {
            let i = self.issued as usize;
            (address[i], write, data[i])
        });
        let (mut values, mut errors, mut answered) = (self.values, self.errors, self.answered);
        if let Some((d, e)) = answer {
            values[answered as usize] = d;
            errors[answered as usize] = e;
            answered += 1;
        }
        let response = (answered == needed)
            .then(|| register_response_beat(b, chip, needed, refusal, values, errors));
        RegAccessOutputs {
            access,
            consumed: response.is_some() && responses_ready,
            response,
        }
    }
    /// The edge. Returns whether the request was consumed.
    pub fn edge(
        &mut self,
        reset: bool,
        input: Option<&MgmtBeat>,
        chip: u16,
        answer: Option<(u64, u8)>,
        access_ready: bool,
        responses_ready: bool,
    ) -> bool {
        let o = self.outputs(input, chip, answer, responses_ready);
        if reset || o.consumed {
            *self = Self::new(self.address_bits);
            return o.consumed && !reset;
        }
        if o.access.is_some() && access_ready {
            self.issued += 1;
        }
        if let Some((d, e)) = answer {
            self.values[self.answered as usize] = d;
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
    /// Forward route words `w1`, `w2`.
    pub route: [u64; 2],
    /// The server's DestID.
    pub dest: u16,
    /// This chip.
    pub chip: u16,
}

impl ActiveReportModel {
    /// The report beat offered, and `reports_sent`.
    pub fn outputs(&self, c: &ReportConfig) -> (Option<MgmtBeat>, bool) {
        let beat = self.offered.map(|bits| {
            let info = mgmt::DEST_TYPE.set(0, DestType::Nic.code() as u128);
            let info = NMP_TYPE.set(info, NmpType::FaultReport.code() as u128);
            let info = mgmt::TRANSACTION_ID.set(info, self.transaction_id as u128) as u64;
            MgmtBeat {
                src: c.chip,
                dst: c.dest,
                words: [info, c.route[0], c.route[1], 0, 0, 0, bits, 0],
            }
        });
        (beat, self.sent)
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

/// The collector, cycle by cycle: fixed priority `responses, eeprom, reports`, the
/// choice a register that takes the first offered input (else `reports`) on every edge where
/// the held input offers nothing or its beat is taken.
#[derive(Default)]
pub struct CollectorModel {
    /// The input whose beat is offered (0 after reset).
    pub held: usize,
}

impl CollectorModel {
    /// The input whose beat is offered this cycle, if it offers one.
    pub fn choice(&self, offered: &[Option<MgmtBeat>; 3]) -> Option<usize> {
        offered[self.held].is_some().then_some(self.held)
    }
    /// The edge; returns the input taken.
    pub fn edge(
        &mut self,
        reset: bool,
        offered: &[Option<MgmtBeat>; 3],
        ready: bool,
    ) -> Option<usize> {
        let c = self.choice(offered);
        if reset {
            self.held = 0;
            return None;
        }
        if c.is_none() || ready {
            self.held = offered.iter().position(|o| o.is_some()).unwrap_or(2);
        }
        c.filter(|_| ready)
    }
}

/// The EEPROM command of an EEPROM request beat, as `hdl::mgmt::EepBridge` decodes it: write
/// for type 0x13, `count` and `address0` of `w5`, the bytes of `w6`.
pub fn eeprom_command(b: &MgmtBeat) -> EepCommand {
    let access = b.words[W_ACCESS] as u128;
    EepCommand {
        write: beat_type(b) == NmpType::EepWriteRequest.code(),
        address: ADDRESS0.get(access) as u32,
        count: COUNT.get(access) as u32,
        data: std::array::from_fn(|i| (b.words[W_DATA0] >> (8 * i)) as u8),
    }
}

/// The response the agent sends to EEPROM request `b` whose command had result `r`: `w5` =
/// the request's `count` and `address0`; read: type 0x12 with the bytes in `w6`; write: 0x14;
/// an error: 0x15 with the error of `hdl::mgmt::eep_bridge::EEP_ERROR_RESPONSES`, `w6` zero.
pub fn eeprom_response(b: &MgmtBeat, chip: u16, r: &EepResult) -> MgmtBeat {
    let c = eeprom_command(b);
    let echo = ADDRESS0.set(COUNT.set(0, c.count as u128), c.address as u128) as u64;
    let error = response_error(r.error);
    let bytes = r
        .data
        .iter()
        .enumerate()
        .fold(0u64, |d, (i, &x)| d | (x as u64) << (8 * i));
    let (t, data) = if error != MgmtError::None {
        (NmpType::EepErrorResponse, 0)
    } else if c.write {
        (NmpType::EepWriteResponse, 0)
    } else {
        (NmpType::EepReadResponse, bytes)
    };
    response_beat(b, chip, t, error, [echo, data, 0])
}

/// What the EEPROM bridge offers in a cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct EepBridgeOutputs {
    /// The command offered.
    pub command: Option<EepCommand>,
    /// The response offered.
    pub response: Option<MgmtBeat>,
    /// `result.ready`.
    pub result_ready: bool,
    /// The request is consumed on this edge (with its response).
    pub consumed: bool,
}

/// The EEPROM bridge, cycle by cycle (see `hdl::mgmt::eep_bridge`): the request's command
/// offered until taken, then the response offered with the result and taken with it.
#[derive(Clone, Debug, Default)]
pub struct EepBridgeModel {
    /// The command of the request on offer was taken.
    pub issued: bool,
}

impl EepBridgeModel {
    /// The outputs for the offered request `input`, the offered result and `responses.ready`.
    pub fn outputs(
        &self,
        input: Option<&MgmtBeat>,
        chip: u16,
        result: Option<&EepResult>,
        responses_ready: bool,
    ) -> EepBridgeOutputs {
        let command = input.filter(|_| !self.issued).map(eeprom_command);
        let response = match (input, result) {
            (Some(b), Some(r)) if self.issued => Some(eeprom_response(b, chip, r)),
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
        input: Option<&MgmtBeat>,
        chip: u16,
        result: Option<&EepResult>,
        command_ready: bool,
        responses_ready: bool,
    ) -> bool {
        let o = self.outputs(input, chip, result, responses_ready);
        if reset {
            self.issued = false;
            return false;
        }
        if o.command.is_some() && command_ready {
            self.issued = true;
        }
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
