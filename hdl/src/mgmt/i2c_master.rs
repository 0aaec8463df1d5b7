//! An I2C master (single-master bus) for the management agent's EEPROM: START (or repeated
//! START), STOP, write a byte (answering the target's acknowledge bit) and read a byte
//! (sending ACK or NACK after it), one command at a time.
//!
//! **Why not rust-hdl's `I2CController`/`I2CDriver`.** They do not honour clock stretching (the
//! high half of a bit is timed from the moment SCL is released, not from when it is seen high),
//! they have no reset (an error state is left only by reloading the bitstream), they time bits
//! with a `Duration` rather than a cycle count, and they cannot recover a bus whose SDA a target
//! holds low after a transfer was cut. This block does all four, in one state machine for the
//! bus timing around an [`I2cCommandRegister`] (the command at hand and its byte's bits).
//!
//! **Handshake.** Commands arrive on [`I2cCommandSink`] (valid/ready, the rules of
//! [`crate::stream`]); every command is answered by exactly one beat on [`I2cResultSource`],
//! and the next command is taken only after the answer has been taken, so the answers come in
//! command order. While the master waits for a command inside a transaction it holds SCL low
//! (legal in I2C: a master may keep the clock low as long as it likes).
//!
//! **Bus timing** (`quarter` = Q cycles; inputs pass a two-flop synchronizer, 2 cycles): a bit
//! holds SDA for Q cycles after SCL falls, changes it, waits Q cycles (setup), releases SCL,
//! waits until SCL is *seen* high (a target stretching the clock holds it low: the master waits,
//! up to `stretch_limit` quarters), keeps SCL high 2Q cycles, samples SDA and pulls SCL low. SCL
//! is low 2Q cycles and high 2Q + 3 cycles (the synchronizer), a bit takes 4Q + 3 cycles. A START
//! releases SDA (SCL low if inside a transaction), releases SCL, waits 2Q cycles high, pulls SDA
//! low and after 2Q more cycles pulls SCL low; a STOP pulls SDA low while SCL is low, releases
//! SCL, waits 2Q cycles, releases SDA and waits 2Q cycles of bus free time. Every minimum of the
//! I2C specification is then 2Q or less, so Q >= 2.35 us meets standard mode (tLOW 4.7 us,
//! tHIGH 4.0, tSU;STA 4.7, tHD;STA 4.0, tSU;STO 4.0, tBUF 4.7; SCL at about 105 kHz) and
//! Q >= 0.65 us fast mode (tLOW 1.3 us; a 50 % duty clock then runs at most 385 kHz). At a
//! 50 MHz core clock: `quarter` = 118 (standard) or 33 (fast).
//!
//! **Bus recovery.** A START first checks that SDA is high once SCL is high. If a target holds
//! SDA low (a transfer was cut, by reset for example, while the target was sending a 0 or an
//! acknowledge), the master clocks SCL (one low and one high half, SDA released) and checks
//! again, up to 9 times, as the I2C specification prescribes; the target runs out of bits,
//! sees no acknowledge and lets SDA go, and the START that follows resets it. If SDA is still
//! low after 9 clocks, or a target stretches the clock past `stretch_limit` quarters, the master
//! releases both lines and answers with `bus_error` (and `acknowledged` low).
//!
//! **Reset** (synchronous): the transfer in progress is abandoned, both lines are released in
//! the next cycle, an answer not yet taken is dropped and `command.ready` is low during reset.
//! A target cut in the middle of a byte is brought back by the next START (recovery above).
//!
//! Parameters (elaboration values of [`I2cMaster::new`]): `quarter`, cycles per quarter SCL
//! period (1..=32767); `stretch_limit`, quarters a target may stretch one clock (1..=65535).
use crate::mgmt::i2c_command_register::I2cCommandRegister;
use rust_hdl::prelude::*;

/// I2C master operations, defined once: the hardware compares `op` with these codes, the
/// benches and `eep_access` drive them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum I2cOp {
    /// START, or repeated START inside a transaction (with bus recovery first if SDA is stuck).
    Start,
    /// STOP (nothing is done outside a transaction).
    Stop,
    /// Write `data`, MSB first; the answer says whether the target acknowledged it.
    Write,
    /// Read a byte into the answer's `data`; then send ACK if `ack` is set, else NACK.
    Read,
}

/// Width of [`I2cCommandSink::op`].
pub const I2C_OP_BITS: usize = 2;

impl I2cOp {
    /// Every operation, in code order.
    pub const ALL: [I2cOp; 4] = [I2cOp::Start, I2cOp::Stop, I2cOp::Write, I2cOp::Read];
    /// The numeric code on the `op` wires.
    pub const fn code(self) -> u64 {
        match self {
            I2cOp::Start => 0,
            I2cOp::Stop => 1,
            I2cOp::Write => 2,
            I2cOp::Read => 3,
        }
    }
    /// The code as the hardware's `Bits`.
    pub fn bits(self) -> Bits<I2C_OP_BITS> {
        Bits::<I2C_OP_BITS>::from(self.code())
    }
}

/// The issuing end of the master's commands (a client such as `eep_access`, or a bench).
#[derive(LogicInterface, Default)]
#[join = "I2cCommandSink"]
pub struct I2cCommandSource {
    /// A command is offered.
    pub valid: Signal<Out, bool>,
    /// [`I2cOp`] code.
    pub op: Signal<Out, Bits<I2C_OP_BITS>>,
    /// The byte to write ([`I2cOp::Write`]).
    pub data: Signal<Out, Bits<8>>,
    /// Acknowledge the byte read ([`I2cOp::Read`]); low sends NACK (the last byte of a read).
    pub ack: Signal<Out, bool>,
    /// The master takes the command on this edge.
    pub ready: Signal<In, bool>,
}

/// The master's command port.
#[derive(LogicInterface, Default)]
#[join = "I2cCommandSource"]
pub struct I2cCommandSink {
    /// A command is offered.
    pub valid: Signal<In, bool>,
    /// [`I2cOp`] code.
    pub op: Signal<In, Bits<I2C_OP_BITS>>,
    /// The byte to write ([`I2cOp::Write`]).
    pub data: Signal<In, Bits<8>>,
    /// Acknowledge the byte read ([`I2cOp::Read`]); low sends NACK.
    pub ack: Signal<In, bool>,
    /// The command is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// The master's answer port: one answer per command.
#[derive(LogicInterface, Default)]
#[join = "I2cResultSink"]
pub struct I2cResultSource {
    /// An answer is offered.
    pub valid: Signal<Out, bool>,
    /// The byte read ([`I2cOp::Read`]); for a write, the byte as seen on the bus.
    pub data: Signal<Out, Bits<8>>,
    /// Write: the target acknowledged the byte. START, STOP, read: the command was carried out
    /// (low only with `bus_error`).
    pub acknowledged: Signal<Out, bool>,
    /// SDA stuck low after 9 recovery clocks, or SCL stretched past the limit: both lines have
    /// been released and the transaction is over.
    pub bus_error: Signal<Out, bool>,
    /// The client takes the answer on this edge.
    pub ready: Signal<In, bool>,
}

/// The client's end of the answers.
#[derive(LogicInterface, Default)]
#[join = "I2cResultSource"]
pub struct I2cResultSink {
    /// An answer is offered.
    pub valid: Signal<In, bool>,
    /// The byte read.
    pub data: Signal<In, Bits<8>>,
    /// See [`I2cResultSource::acknowledged`].
    pub acknowledged: Signal<In, bool>,
    /// See [`I2cResultSource::bus_error`].
    pub bus_error: Signal<In, bool>,
    /// The answer is taken on this edge.
    pub ready: Signal<Out, bool>,
}

/// The open-drain pins of an I2C master: a line is pulled low or released (the pull-up makes
/// it high), and read back as it is on the bus (the AND of every device on it).
#[derive(LogicInterface, Default)]
pub struct I2cPins {
    /// Pull SCL low (else release it).
    pub scl_drive_low: Signal<Out, bool>,
    /// Pull SDA low (else release it).
    pub sda_drive_low: Signal<Out, bool>,
    /// SCL as it is on the bus (asynchronous: synchronized inside).
    pub scl_in: Signal<In, bool>,
    /// SDA as it is on the bus (asynchronous: synchronized inside).
    pub sda_in: Signal<In, bool>,
}

/// Where the master is in the current command.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum Phase {
    /// Waiting for a command.
    Idle,
    /// SCL low, SDA unchanged: the hold time after SCL fell (one quarter).
    Hold,
    /// SCL low, SDA at its new value: the setup time (one quarter).
    Setup,
    /// SCL released, waiting to see it high (a target may stretch it).
    Rise,
    /// SCL high for two quarters; SDA is sampled at the end.
    High,
    /// SCL high, SDA changed to make a START or STOP (two quarters).
    Condition,
    /// The answer is offered.
    Answer,
}

/// An I2C master; see the module documentation.
#[derive(LogicBlock)]
pub struct I2cMaster {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: abandon the transfer, release the bus.
    pub reset: Signal<In, bool>,
    /// Commands.
    pub command: I2cCommandSink,
    /// One answer per command.
    pub result: I2cResultSource,
    /// The bus.
    pub i2c: I2cPins,
    /// `quarter - 1`.
    quarter_last: Constant<Bits<16>>,
    /// `2 * quarter - 1`.
    half_last: Constant<Bits<16>>,
    stretch_limit: Constant<Bits<16>>,
    /// The command at hand: its operation and its byte's bits.
    held: I2cCommandRegister,
    phase: DFF<Phase>,
    /// Cycles spent in the current quarter or half.
    count: DFF<Bits<16>>,
    scl_low: DFF<bool>,
    sda_low: DFF<bool>,
    /// Inside a transaction (after a START, before a STOP): the master holds SCL low.
    in_transaction: DFF<bool>,
    /// Recovery clocks given in this START.
    recoveries: DFF<Bits<4>>,
    /// Quarters spent waiting for SCL in this clock.
    stretched: DFF<Bits<16>>,
    acknowledged: DFF<bool>,
    bus_error: DFF<bool>,
    /// SCL as seen: two-flop synchronizer (the line is asynchronous to the clock).
    scl_sync: BitSynchronizer,
    /// SDA as seen, likewise.
    sda_sync: BitSynchronizer,
    quarter_done: Signal<Local, bool>,
    half_done: Signal<Local, bool>,
    /// Give up: release the bus and answer with `bus_error`.
    abandon: Signal<Local, bool>,
}

impl I2cMaster {
    /// A master with `quarter` clock cycles per quarter SCL period and clock stretching allowed
    /// up to `stretch_limit` quarters per clock.
    pub fn new(quarter: u32, stretch_limit: u32) -> Self {
        assert!(
            (1..=32767).contains(&quarter),
            "I2cMaster: quarter (cycles per quarter SCL period) must be 1..=32767, got {quarter}"
        );
        assert!(
            (1..=65535).contains(&stretch_limit),
            "I2cMaster: stretch_limit (quarters) must be 1..=65535, got {stretch_limit}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            command: Default::default(),
            result: Default::default(),
            i2c: Default::default(),
            quarter_last: Constant::new((quarter as u64 - 1).into()),
            half_last: Constant::new((2 * quarter as u64 - 1).into()),
            stretch_limit: Constant::new((stretch_limit as u64).into()),
            held: Default::default(),
            phase: Default::default(),
            count: Default::default(),
            scl_low: Default::default(),
            sda_low: Default::default(),
            in_transaction: Default::default(),
            recoveries: Default::default(),
            stretched: Default::default(),
            acknowledged: Default::default(),
            bus_error: Default::default(),
            scl_sync: Default::default(),
            sda_sync: Default::default(),
            quarter_done: Default::default(),
            half_done: Default::default(),
            abandon: Default::default(),
        }
    }
}

impl Logic for I2cMaster {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase, count, scl_low, sda_low, in_transaction);
        dff_setup!(self, clock, recoveries, stretched, acknowledged, bus_error);
        clock!(self, clock, held);
        // Two-flop synchronizers: the lines are asynchronous to the clock.
        clock!(self, clock, scl_sync, sda_sync);
        self.scl_sync.sig_in.next = self.i2c.scl_in.val();
        self.sda_sync.sig_in.next = self.i2c.sda_in.val();
        // Registered drivers: no glitch reaches the bus.
        self.i2c.scl_drive_low.next = self.scl_low.q.val();
        self.i2c.sda_drive_low.next = self.sda_low.q.val();
        // The command register takes a command while the master is idle.
        I2cCommandSink::link(&mut self.command, &mut self.held.command);
        self.held.reset.next = self.reset.val();
        self.held.accept.next = self.phase.q.val() == Phase::Idle;
        self.held.sample.next = false;
        self.held.sda.next = self.sda_sync.sig_out.val();
        self.result.valid.next = self.phase.q.val() == Phase::Answer;
        self.result.data.next = self.held.received.val();
        self.result.acknowledged.next = self.acknowledged.q.val();
        self.result.bus_error.next = self.bus_error.q.val();
        self.quarter_done.next = self.count.q.val() == self.quarter_last.val();
        self.half_done.next = self.count.q.val() == self.half_last.val();
        self.abandon.next = false;
        self.count.d.next = self.count.q.val() + 1;
        match self.phase.q.val() {
            Phase::Idle => {
                self.count.d.next = 0.into();
                if self.held.taken.val() {
                    self.recoveries.d.next = 0.into();
                    self.acknowledged.d.next = true;
                    self.bus_error.d.next = false;
                    self.phase.d.next = Phase::Hold;
                    if self.held.stop_taken.val() & !self.in_transaction.q.val() {
                        // Outside a transaction a STOP has nothing to end.
                        self.phase.d.next = Phase::Answer;
                    }
                }
            }
            Phase::Hold => {
                if self.quarter_done.val() {
                    self.count.d.next = 0.into();
                    self.phase.d.next = Phase::Setup;
                    self.sda_low.d.next = !self.held.next_bit.val();
                    if self.held.start.val() {
                        self.sda_low.d.next = false;
                    }
                    if self.held.stop.val() {
                        self.sda_low.d.next = true;
                    }
                }
            }
            Phase::Setup => {
                if self.quarter_done.val() {
                    self.count.d.next = 0.into();
                    self.stretched.d.next = 0.into();
                    self.scl_low.d.next = false;
                    self.phase.d.next = Phase::Rise;
                }
            }
            Phase::Rise => {
                if self.scl_sync.sig_out.val() {
                    // The high half is timed from when SCL is seen high: clock stretching.
                    self.count.d.next = 0.into();
                    self.phase.d.next = Phase::High;
                } else if self.quarter_done.val() {
                    self.count.d.next = 0.into();
                    self.stretched.d.next = self.stretched.q.val() + 1;
                    if self.stretched.q.val() == self.stretch_limit.val() {
                        self.abandon.next = true;
                    }
                }
            }
            Phase::High => {
                if self.half_done.val() {
                    self.count.d.next = 0.into();
                    if self.held.start.val() {
                        if self.sda_sync.sig_out.val() {
                            self.sda_low.d.next = true;
                            self.phase.d.next = Phase::Condition;
                        } else if self.recoveries.q.val() == 9 {
                            self.abandon.next = true;
                        } else {
                            // SDA held low by a target: one recovery clock, then look again.
                            self.recoveries.d.next = self.recoveries.q.val() + 1;
                            self.scl_low.d.next = true;
                            self.phase.d.next = Phase::Hold;
                        }
                    } else if self.held.stop.val() {
                        self.sda_low.d.next = false;
                        self.phase.d.next = Phase::Condition;
                    } else {
                        self.held.sample.next = true;
                        self.scl_low.d.next = true;
                        self.phase.d.next = Phase::Hold;
                        if self.held.last_bit.val() {
                            self.phase.d.next = Phase::Answer;
                            // The ninth bit of a write is the target's acknowledge (SDA low).
                            self.acknowledged.d.next =
                                !(self.held.write.val() & self.sda_sync.sig_out.val());
                        }
                    }
                }
            }
            Phase::Condition => {
                if self.half_done.val() {
                    self.count.d.next = 0.into();
                    self.in_transaction.d.next = self.held.start.val();
                    if self.held.start.val() {
                        self.scl_low.d.next = true;
                    }
                    self.phase.d.next = Phase::Answer;
                }
            }
            Phase::Answer => {
                if self.result.ready.val() {
                    self.phase.d.next = Phase::Idle;
                }
            }
            _ => {
                self.phase.d.next = Phase::Idle;
            }
        }
        if self.abandon.val() {
            self.scl_low.d.next = false;
            self.sda_low.d.next = false;
            self.in_transaction.d.next = false;
            self.acknowledged.d.next = false;
            self.bus_error.d.next = true;
            self.phase.d.next = Phase::Answer;
        }
        if self.reset.val() {
            self.phase.d.next = Phase::Idle;
            self.scl_low.d.next = false;
            self.sda_low.d.next = false;
            self.in_transaction.d.next = false;
            self.count.d.next = 0.into();
        }
    }
}

#[test]
fn i2c_master_is_synthesizable() {
    let mut uut = I2cMaster::new(4, 100);
    uut.connect_all();
    yosys_validate("i2c_master", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "quarter")]
fn i2c_master_rejects_a_zero_quarter() {
    let _ = I2cMaster::new(0, 100);
}

#[test]
fn i2c_op_codes_fit() {
    for op in I2cOp::ALL {
        assert!(op.code() < 1 << I2C_OP_BITS);
        assert_eq!(op.bits().to_u64(), op.code());
    }
}
