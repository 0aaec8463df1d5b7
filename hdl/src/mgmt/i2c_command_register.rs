//! `I2cCommandRegister`: the byte stage of the [`I2cMaster`]: takes a command from the master's
//! command port and holds it while the master carries it out: its operation, decoded, and the
//! nine bits it puts on SDA (the byte then the acknowledge slot), which the bits seen on the
//! bus replace one by one. The master's phase machine keeps only the bus timing.
//!
//! **Taking a command.** `command.ready` is `accept` (the master is idle) and low during
//! reset; a command is taken on an edge with `command.valid && command.ready` (`taken` high in
//! that cycle, with `stop_taken` if it is a STOP). Taking it loads the operation and the bits:
//! a write sends its byte MSB first, then releases SDA for the target's acknowledge; a read
//! releases SDA for 8 bits, then pulls it low to acknowledge (or releases it, NACK, when
//! `command.ack` is low). START and STOP load a write's bits, unused.
//!
//! **Bits.** `next_bit` is the bit to put on SDA (1 releases it). `sample` (at the end of a data
//! bit's high half) shifts `sda`, the bit seen on the bus, in at the bottom; after the ninth
//! sample `received` holds the eight bits seen before the acknowledge slot: the byte read, or a
//! written byte as the bus carried it. `last_bit` is high while the ninth bit is clocked.
//!
//! **Reset** (synchronous): no command is taken. The held command needs no reset: the master is
//! idle after reset and loads the next command whole.
//!
//! [`I2cMaster`]: super::i2c_master::I2cMaster
use crate::mgmt::i2c_master::{I2cCommandSink, I2cOp, I2C_OP_BITS};
use rust_hdl::prelude::*;

/// Bits clocked per byte command: eight data bits and the acknowledge slot.
const BITS_PER_BYTE: u64 = 9;

/// The command at hand; see the module documentation.
#[derive(LogicBlock)]
pub struct I2cCommandRegister {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no command taken.
    pub reset: Signal<In, bool>,
    /// The master's commands.
    pub command: I2cCommandSink,
    /// The master is idle and can take a command.
    pub accept: Signal<In, bool>,
    /// Shift `sda` in (the end of a data bit).
    pub sample: Signal<In, bool>,
    /// SDA as seen on the bus.
    pub sda: Signal<In, bool>,
    /// A command is taken this cycle.
    pub taken: Signal<Out, bool>,
    /// The command taken this cycle is a STOP.
    pub stop_taken: Signal<Out, bool>,
    /// The command held is a START.
    pub start: Signal<Out, bool>,
    /// The command held is a STOP.
    pub stop: Signal<Out, bool>,
    /// The command held is a write.
    pub write: Signal<Out, bool>,
    /// The bit to put on SDA next (1 releases it).
    pub next_bit: Signal<Out, bool>,
    /// The bit being clocked is the ninth, the acknowledge slot.
    pub last_bit: Signal<Out, bool>,
    /// The eight bits seen on the bus before the acknowledge slot.
    pub received: Signal<Out, Bits<8>>,
    op_start: Constant<Bits<I2C_OP_BITS>>,
    op_stop: Constant<Bits<I2C_OP_BITS>>,
    op_write: Constant<Bits<I2C_OP_BITS>>,
    op_read: Constant<Bits<I2C_OP_BITS>>,
    bits_per_byte: Constant<Bits<4>>,
    op: DFF<Bits<I2C_OP_BITS>>,
    /// Bits to send (MSB first, a 1 releases SDA); the bits seen on the bus come in at the LSB.
    shift: DFF<Bits<9>>,
    /// Bits of the current byte still to clock.
    bits_left: DFF<Bits<4>>,
    /// The shift word the offered command loads.
    command_shift: Signal<Local, Bits<9>>,
}

impl Default for I2cCommandRegister {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            command: Default::default(),
            accept: Default::default(),
            sample: Default::default(),
            sda: Default::default(),
            taken: Default::default(),
            stop_taken: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            write: Default::default(),
            next_bit: Default::default(),
            last_bit: Default::default(),
            received: Default::default(),
            op_start: Constant::new(I2cOp::Start.bits()),
            op_stop: Constant::new(I2cOp::Stop.bits()),
            op_write: Constant::new(I2cOp::Write.bits()),
            op_read: Constant::new(I2cOp::Read.bits()),
            bits_per_byte: Constant::new(BITS_PER_BYTE.into()),
            op: Default::default(),
            shift: Default::default(),
            bits_left: Default::default(),
            command_shift: Default::default(),
        }
    }
}

impl Logic for I2cCommandRegister {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, op, shift, bits_left);
        self.command.ready.next = self.accept.val() & !self.reset.val();
        self.taken.next = self.command.valid.val() & self.command.ready.val();
        self.stop_taken.next = self.taken.val() & (self.command.op.val() == self.op_stop.val());
        self.start.next = self.op.q.val() == self.op_start.val();
        self.stop.next = self.op.q.val() == self.op_stop.val();
        self.write.next = self.op.q.val() == self.op_write.val();
        self.next_bit.next = self.shift.q.val().get_bit(8);
        self.last_bit.next = self.bits_left.q.val() == 1;
        self.received.next = self.shift.q.val().get_bits::<8>(1);
        // A write sends the byte, then releases SDA for the target's acknowledge.
        self.command_shift.next = (bit_cast::<9, 8>(self.command.data.val()) << 1) | 1;
        if self.command.op.val() == self.op_read.val() {
            // A read releases SDA for 8 bits, then pulls it low to acknowledge (or not, last byte).
            self.command_shift.next = 0x1FE.into();
            if !self.command.ack.val() {
                self.command_shift.next = 0x1FF.into();
            }
        }
        if self.sample.val() {
            self.shift.d.next = (self.shift.q.val() << 1) | bit_cast::<9, 1>(self.sda.val().into());
            self.bits_left.d.next = self.bits_left.q.val() - 1;
        }
        if self.taken.val() {
            self.op.d.next = self.command.op.val();
            self.shift.d.next = self.command_shift.val();
            self.bits_left.d.next = self.bits_per_byte.val();
        }
    }
}

#[test]
fn i2c_command_register_is_synthesizable() {
    let mut uut = I2cCommandRegister::default();
    uut.connect_all();
    yosys_validate("i2c_command_register", &generate_verilog(&uut)).unwrap();
}
