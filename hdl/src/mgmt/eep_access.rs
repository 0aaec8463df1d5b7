//! `eep_access`: the management agent's EEPROM unit. It takes one command per beat (read or
//! write 1..=6 bytes at a 16-bit byte address) and answers one result per command (the bytes
//! read and an error code), driving an [`I2cMaster`] to a 64 KiB 24LC512-like part at device
//! address `0b1010_A2A1A0` (A2..A0 from the `device` input, taken with the command).
//!
//! **Sequences.** Every transaction begins with *ACK polling*: START and the control byte
//! (write); while the part refuses it (it does so during its self-timed write cycle, or when
//! it is absent), STOP and try again, up to `poll_limit` refusals in a row, after which the
//! command fails with [`EepError::NoAcknowledge`]. Polling first also makes a command that
//! follows a write cut by reset wait for the part instead of failing.
//! - Read: control (write), address high, address low, repeated START, control (read), the
//!   bytes (ACK after each but the last, NACK after the last), STOP.
//! - Write: control, address high, address low, the bytes, STOP; a write that crosses a
//!   128-byte page end is split there (the part would wrap inside its page) into two such
//!   transactions. After each, ACK polling again until the part has finished its write cycle
//!   (the poll that succeeds goes on with the next page's address, or ends with a STOP), so the
//!   answer to a write means the data is in the array.
//!
//! **Errors**, answered with zero data: [`EepError::BadCount`] (count 0 or 7) and
//! [`EepError::AddressRange`] (address + count > 65536) at once, without touching the bus (the
//! command is judged in the cycle after it is taken, from the registers that hold it, so the
//! range check's adder does not lengthen the path from the requester through the
//! [`EepArbiter`](super::eep_arbiter::EepArbiter): with the configuration loader's command
//! logic in front it was the agent's longest path on the iCE40);
//! [`EepError::NoAcknowledge`] when the part refuses any byte other than a polled control byte,
//! when polling gives up, or when the master reports a bus error; the transaction is then ended
//! with a STOP. A write that fails may have written its first page (the part's array is what
//! it is: the answer says the command as a whole did not succeed).
//!
//! **Handshake.** `command` and `result` obey the stream rules of [`crate::stream`]; one command
//! at a time: the next is taken after the result of the previous one has been taken.
//! **Reset** (synchronous): the command in progress is dropped without a result and the
//! master releases the bus (see [`I2cMaster`] for what happens to a cut transfer).
//!
//! Parameters ([`EepAccess::new`]): `quarter` (cycles per quarter SCL period, see
//! [`I2cMaster`]), `stretch_limit` (quarters), `poll_limit` (refused control bytes tolerated in a
//! row, 1..=65535; size it so that polling outlasts the part's write cycle, 5 ms for a
//! 24LC512: one poll takes about 9 bits + START + STOP, about 50 quarters).
use crate::mgmt::eep_command_check::EepCommandCheck;
use crate::mgmt::i2c_master::{I2cMaster, I2cOp, I2cPins, I2C_OP_BITS};
use rust_hdl::prelude::*;

/// Most bytes per command.
pub const EEP_MAX_BYTES: usize = 6;
/// Width of a command's data (6 bytes, byte `i` in bits `8i..8i+8`).
pub const EEP_DATA_BITS: usize = 8 * EEP_MAX_BYTES;
/// Width of a command's byte count.
pub const EEP_COUNT_BITS: usize = 3;
/// Width of a byte address (64 KiB).
pub const EEP_ADDRESS_BITS: usize = 16;
/// Width of the error code.
pub const EEP_ERROR_BITS: usize = 2;
/// Bytes in one write page of the part.
pub const EEP_PAGE_BYTES: u64 = 128;

/// Why an EEPROM command failed, defined once (hardware codes, bench model, error responses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EepError {
    /// Carried out.
    None,
    /// The part did not acknowledge (absent, busy past the poll limit, or a NACK at a byte),
    /// or the I2C bus is stuck.
    NoAcknowledge,
    /// `count` was 0 or more than 6; nothing was done.
    BadCount,
    /// `address + count` is past the end of the 64 KiB array; nothing was done.
    AddressRange,
}

impl EepError {
    /// Every code, in code order.
    pub const ALL: [EepError; 4] = [
        EepError::None,
        EepError::NoAcknowledge,
        EepError::BadCount,
        EepError::AddressRange,
    ];
    /// The numeric code on the `error` wires.
    pub const fn code(self) -> u64 {
        match self {
            EepError::None => 0,
            EepError::NoAcknowledge => 1,
            EepError::BadCount => 2,
            EepError::AddressRange => 3,
        }
    }
    /// The error of numeric code `code`, if any.
    pub fn from_code(code: u64) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.code() == code)
    }
    /// The code as the hardware's `Bits`.
    pub fn bits(self) -> Bits<EEP_ERROR_BITS> {
        Bits::<EEP_ERROR_BITS>::from(self.code())
    }
}

/// The issuing end of EEPROM commands.
#[derive(LogicInterface, Default)]
#[join = "EepCommandSink"]
pub struct EepCommandSource {
    /// A command is offered.
    pub valid: Signal<Out, bool>,
    /// Write (else read).
    pub write: Signal<Out, bool>,
    /// First byte address.
    pub address: Signal<Out, Bits<EEP_ADDRESS_BITS>>,
    /// Bytes, 1..=6.
    pub count: Signal<Out, Bits<EEP_COUNT_BITS>>,
    /// Bytes to write, byte `i` in bits `8i..8i+8` (ignored by reads).
    pub data: Signal<Out, Bits<EEP_DATA_BITS>>,
    /// The command is taken on this edge.
    pub ready: Signal<In, bool>,
}

/// `eep_access`'s command port.
#[derive(LogicInterface, Default)]
#[join = "EepCommandSource"]
pub struct EepCommandSink {
    /// A command is offered.
    pub valid: Signal<In, bool>,
    /// Write (else read).
    pub write: Signal<In, bool>,
    /// First byte address.
    pub address: Signal<In, Bits<EEP_ADDRESS_BITS>>,
    /// Bytes, 1..=6.
    pub count: Signal<In, Bits<EEP_COUNT_BITS>>,
    /// Bytes to write, byte `i` in bits `8i..8i+8`.
    pub data: Signal<In, Bits<EEP_DATA_BITS>>,
    /// The command is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// `eep_access`'s result port: one result per command, in order.
#[derive(LogicInterface, Default)]
#[join = "EepResultSink"]
pub struct EepResultSource {
    /// A result is offered.
    pub valid: Signal<Out, bool>,
    /// Bytes read, byte `i` in bits `8i..8i+8`; zero beyond the count, for writes and errors.
    pub data: Signal<Out, Bits<EEP_DATA_BITS>>,
    /// [`EepError`] code.
    pub error: Signal<Out, Bits<EEP_ERROR_BITS>>,
    /// The result is taken on this edge.
    pub ready: Signal<In, bool>,
}

/// The receiving end of EEPROM results.
#[derive(LogicInterface, Default)]
#[join = "EepResultSource"]
pub struct EepResultSink {
    /// A result is offered.
    pub valid: Signal<In, bool>,
    /// Bytes read.
    pub data: Signal<In, Bits<EEP_DATA_BITS>>,
    /// [`EepError`] code.
    pub error: Signal<In, Bits<EEP_ERROR_BITS>>,
    /// The result is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// The I2C operation in progress (each is one master command and its answer).
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum Step {
    Idle,
    /// The command just taken is judged (range and count) from its registers.
    Check,
    /// START of a polled transaction.
    Start,
    /// Control byte (write); refused means poll again.
    Control,
    AddressHigh,
    AddressLow,
    /// Repeated START of a read.
    Restart,
    /// Control byte (read).
    ControlRead,
    ReadData,
    WriteData,
    /// STOP after a page's data: the part starts its write cycle.
    SegmentStop,
    /// STOP after a refused control byte.
    PollStop,
    /// The final STOP (after success or failure).
    Finish,
    /// The result is offered.
    Answer,
}

/// The EEPROM access unit; see the module documentation.
#[derive(LogicBlock)]
pub struct EepAccess {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Commands.
    pub command: EepCommandSink,
    /// Results.
    pub result: EepResultSource,
    /// A2..A0 of the part (taken with each command).
    pub device: Signal<In, Bits<3>>,
    /// The I2C bus.
    pub i2c: I2cPins,
    master: I2cMaster,
    poll_limit: Constant<Bits<16>>,
    error_none: Constant<Bits<EEP_ERROR_BITS>>,
    error_no_acknowledge: Constant<Bits<EEP_ERROR_BITS>>,
    step: DFF<Step>,
    /// A master command was taken; its answer is awaited.
    waiting: DFF<bool>,
    write: DFF<bool>,
    address: DFF<Bits<EEP_ADDRESS_BITS>>,
    count: DFF<Bits<EEP_COUNT_BITS>>,
    data: DFF<Bits<EEP_DATA_BITS>>,
    device_address: DFF<Bits<3>>,
    /// Bytes moved so far.
    index: DFF<Bits<EEP_COUNT_BITS>>,
    /// `index` at which the current page's part of a write ends.
    segment_end: DFF<Bits<EEP_COUNT_BITS>>,
    /// Control bytes refused in a row.
    polls: DFF<Bits<16>>,
    error: DFF<Bits<EEP_ERROR_BITS>>,
    read_data: DFF<Bits<EEP_DATA_BITS>>,
    /// `8 * index`: the bit offset of the current byte.
    offset: Signal<Local, Bits<8>>,
    /// The master answered this cycle (and is taken).
    answered: Signal<Local, bool>,
    refused: Signal<Local, bool>,
    polls_next: Signal<Local, Bits<16>>,
    /// The offered command's error code and first page's part.
    check: EepCommandCheck,
    /// The master command of each step.
    step_command: StepCommand,
    last_byte: Signal<Local, bool>,
    index_next: Signal<Local, Bits<EEP_COUNT_BITS>>,
}

impl EepAccess {
    /// A unit whose master has `quarter` cycles per quarter SCL period and tolerates clock
    /// stretching up to `stretch_limit` quarters, giving up after `poll_limit` refused control
    /// bytes in a row.
    pub fn new(quarter: u32, stretch_limit: u32, poll_limit: u32) -> Self {
        assert!(
            (1..=65535).contains(&poll_limit),
            "EepAccess: poll_limit must be 1..=65535, got {poll_limit}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            command: Default::default(),
            result: Default::default(),
            device: Default::default(),
            i2c: Default::default(),
            master: I2cMaster::new(quarter, stretch_limit),
            poll_limit: Constant::new((poll_limit as u64).into()),
            error_none: Constant::new(EepError::None.bits()),
            error_no_acknowledge: Constant::new(EepError::NoAcknowledge.bits()),
            step: Default::default(),
            waiting: Default::default(),
            write: Default::default(),
            address: Default::default(),
            count: Default::default(),
            data: Default::default(),
            device_address: Default::default(),
            index: Default::default(),
            segment_end: Default::default(),
            polls: Default::default(),
            error: Default::default(),
            read_data: Default::default(),
            offset: Default::default(),
            answered: Default::default(),
            refused: Default::default(),
            polls_next: Default::default(),
            check: Default::default(),
            step_command: Default::default(),
            last_byte: Default::default(),
            index_next: Default::default(),
        }
    }
}

impl Logic for EepAccess {
    #[hdl_gen]
    fn update(&mut self) {
        I2cPins::link(&mut self.i2c, &mut self.master.i2c);
        // Combinational children: the command check and the step's master command.
        clock!(self, clock, master);
        dff_setup!(
            self,
            clock,
            step,
            waiting,
            write,
            address,
            count,
            data,
            device_address,
            index,
            segment_end,
            polls,
            error,
            read_data
        );
        self.master.reset.next = self.reset.val();
        self.command.ready.next = (self.step.q.val() == Step::Idle) & !self.reset.val();
        self.result.valid.next = self.step.q.val() == Step::Answer;
        self.result.data.next = self.read_data.q.val();
        self.result.error.next = self.error.q.val();
        self.offset.next = bit_cast::<8, EEP_COUNT_BITS>(self.index.q.val()) << 3;
        self.index_next.next = self.index.q.val() + 1;
        self.last_byte.next = self.index_next.val() == self.count.q.val();
        // The master command of this step, offered until taken (then its answer is awaited).
        self.master.command.valid.next = !self.waiting.q.val()
            & (self.step.q.val() != Step::Idle)
            & (self.step.q.val() != Step::Check)
            & (self.step.q.val() != Step::Answer);
        self.step_command.step.next = self.step.q.val();
        self.step_command.device_address.next = self.device_address.q.val();
        self.step_command.address.next = self.address.q.val();
        self.step_command.index.next = self.index.q.val();
        self.step_command.offset.next = self.offset.val();
        self.step_command.command_data.next = self.data.q.val();
        self.master.command.op.next = self.step_command.op.val();
        self.master.command.data.next = self.step_command.data.val();
        self.master.command.ack.next = !self.last_byte.val();
        if self.master.command.valid.val() & self.master.command.ready.val() {
            self.waiting.d.next = true;
        }
        self.master.result.ready.next = self.waiting.q.val();
        self.answered.next = self.waiting.q.val() & self.master.result.valid.val();
        self.refused.next = !self.master.result.acknowledged.val();
        self.polls_next.next = self.polls.q.val() + 1;
        self.check.address.next = self.address.q.val();
        self.check.count.next = self.count.q.val();
        // A command is taken (ready only in Idle) and judged the next cycle; a result is taken
        // (valid only in Answer).
        if self.command.valid.val() & self.command.ready.val() {
            self.write.d.next = self.command.write.val();
            self.address.d.next = self.command.address.val();
            self.count.d.next = self.command.count.val();
            self.data.d.next = self.command.data.val();
            self.device_address.d.next = self.device.val();
            self.index.d.next = 0.into();
            self.polls.d.next = 0.into();
            self.read_data.d.next = 0.into();
            self.step.d.next = Step::Check;
        }
        if self.step.q.val() == Step::Check {
            self.step.d.next = Step::Start;
            self.segment_end.d.next = self.check.segment_end.val();
            self.error.d.next = self.check.error.val();
            if self.check.error.val() != self.error_none.val() {
                self.step.d.next = Step::Answer;
            }
        }
        if self.result.valid.val() & self.result.ready.val() {
            self.step.d.next = Step::Idle;
        }
        if self.answered.val() {
            self.waiting.d.next = false;
            match self.step.q.val() {
                Step::Start => self.step.d.next = Step::Control,
                Step::Control => {
                    if self.refused.val() {
                        self.step.d.next = Step::PollStop;
                    } else {
                        self.polls.d.next = 0.into();
                        self.step.d.next = Step::AddressHigh;
                        if self.index.q.val() == self.count.q.val() {
                            // The poll after the last page write: the data is in.
                            self.step.d.next = Step::Finish;
                        }
                    }
                }
                Step::PollStop => {
                    self.polls.d.next = self.polls_next.val();
                    self.step.d.next = Step::Start;
                    if self.polls_next.val() == self.poll_limit.val() {
                        self.error.d.next = self.error_no_acknowledge.val();
                        self.step.d.next = Step::Answer;
                    }
                }
                Step::AddressHigh => self.step.d.next = Step::AddressLow,
                Step::AddressLow => {
                    self.step.d.next = Step::Restart;
                    if self.write.q.val() {
                        self.step.d.next = Step::WriteData;
                    }
                }
                Step::Restart => self.step.d.next = Step::ControlRead,
                Step::ControlRead => self.step.d.next = Step::ReadData,
                Step::ReadData => {
                    self.read_data.d.next = self.read_data.q.val()
                        | (bit_cast::<EEP_DATA_BITS, 8>(self.master.result.data.val())
                            << self.offset.val());
                    self.index.d.next = self.index_next.val();
                    if self.last_byte.val() {
                        self.step.d.next = Step::Finish;
                    }
                }
                Step::WriteData => {
                    self.index.d.next = self.index_next.val();
                    if self.index_next.val() == self.segment_end.q.val() {
                        self.step.d.next = Step::SegmentStop;
                    }
                }
                Step::SegmentStop => {
                    // Poll for the end of the write cycle; the next page (if any) follows.
                    self.segment_end.d.next = self.count.q.val();
                    self.step.d.next = Step::Start;
                }
                Step::Finish => self.step.d.next = Step::Answer,
                _ => {}
            }
            // Any refused byte other than a polled control byte (or a bus error) fails the
            // command: end the transaction with a STOP.
            // A bus error (the master has released the bus) is not worth polling again.
            if (self.refused.val()
                & (self.step.q.val() != Step::Control)
                & (self.step.q.val() != Step::PollStop)
                & (self.step.q.val() != Step::Finish))
                | (self.master.result.bus_error.val() & (self.step.q.val() != Step::Finish))
            {
                self.error.d.next = self.error_no_acknowledge.val();
                self.step.d.next = Step::Finish;
            }
        }
        if self.reset.val() {
            self.step.d.next = Step::Idle;
            self.waiting.d.next = false;
        }
    }
}

/// The master command of each step: START, STOP, read, or a write of the control byte, the
/// current byte's address (high, low) or the current data byte, each formed here from the
/// command's registers. Combinational.
#[derive(LogicBlock)]
struct StepCommand {
    /// The step in progress.
    step: Signal<In, Step>,
    /// A2..A0 of the part.
    device_address: Signal<In, Bits<3>>,
    /// The command's first byte address.
    address: Signal<In, Bits<EEP_ADDRESS_BITS>>,
    /// Bytes moved so far: the current byte.
    index: Signal<In, Bits<EEP_COUNT_BITS>>,
    /// `8 * index`.
    offset: Signal<In, Bits<8>>,
    /// The command's data (a write's bytes).
    command_data: Signal<In, Bits<EEP_DATA_BITS>>,
    /// The master operation.
    op: Signal<Out, Bits<I2C_OP_BITS>>,
    /// The byte the master writes.
    data: Signal<Out, Bits<8>>,
    /// 0b1010_A2A1A0_0: the part's control byte for a write.
    control_byte: Signal<Local, Bits<8>>,
    /// The byte address of the current byte.
    current_address: Signal<Local, Bits<EEP_ADDRESS_BITS>>,
    /// The data to write shifted so that byte `index` is at the bottom.
    data_at_index: Signal<Local, Bits<EEP_DATA_BITS>>,
    control_prefix: Constant<Bits<8>>,
    op_start: Constant<Bits<I2C_OP_BITS>>,
    op_stop: Constant<Bits<I2C_OP_BITS>>,
    op_write: Constant<Bits<I2C_OP_BITS>>,
    op_read: Constant<Bits<I2C_OP_BITS>>,
}

impl Default for StepCommand {
    fn default() -> Self {
        Self {
            step: Default::default(),
            device_address: Default::default(),
            address: Default::default(),
            index: Default::default(),
            offset: Default::default(),
            command_data: Default::default(),
            op: Default::default(),
            data: Default::default(),
            control_byte: Default::default(),
            current_address: Default::default(),
            data_at_index: Default::default(),
            control_prefix: Constant::new(0xA0u64.into()),
            op_start: Constant::new(I2cOp::Start.bits()),
            op_stop: Constant::new(I2cOp::Stop.bits()),
            op_write: Constant::new(I2cOp::Write.bits()),
            op_read: Constant::new(I2cOp::Read.bits()),
        }
    }
}

impl Logic for StepCommand {
    #[hdl_gen]
    fn update(&mut self) {
        self.control_byte.next =
            self.control_prefix.val() | (bit_cast::<8, 3>(self.device_address.val()) << 1);
        self.current_address.next =
            self.address.val() + bit_cast::<EEP_ADDRESS_BITS, EEP_COUNT_BITS>(self.index.val());
        self.data_at_index.next = self.command_data.val() >> self.offset.val();
        self.op.next = self.op_write.val();
        self.data.next = 0.into();
        match self.step.val() {
            Step::Start => self.op.next = self.op_start.val(),
            Step::Restart => self.op.next = self.op_start.val(),
            Step::SegmentStop => self.op.next = self.op_stop.val(),
            Step::PollStop => self.op.next = self.op_stop.val(),
            Step::Finish => self.op.next = self.op_stop.val(),
            Step::ReadData => self.op.next = self.op_read.val(),
            Step::Control => self.data.next = self.control_byte.val(),
            Step::ControlRead => self.data.next = self.control_byte.val() | 1,
            Step::AddressHigh => self.data.next = self.current_address.val().get_bits::<8>(8),
            Step::AddressLow => self.data.next = self.current_address.val().get_bits::<8>(0),
            Step::WriteData => self.data.next = self.data_at_index.val().get_bits::<8>(0),
            _ => {}
        }
    }
}

#[test]
fn eep_access_is_synthesizable() {
    let mut uut = EepAccess::new(4, 100, 50);
    uut.connect_all();
    yosys_validate("eep_access", &generate_verilog(&uut)).unwrap();
}

#[test]
fn eep_error_codes_round_trip_and_fit() {
    for e in EepError::ALL {
        assert_eq!(EepError::from_code(e.code()), Some(e));
        assert!(e.code() < 1 << EEP_ERROR_BITS);
    }
}
