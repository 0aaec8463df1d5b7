//! `NapTable`: the NAP upload's open-message table (`nic.nap_open` entries, flip-flops: a small
//! CAM), one entry per multi-packet NAP message being assembled, and its idle timers.
//!
//! **Entry**: `valid`, `discarding` (the message got no buffer: its packets are swallowed),
//! the key (source node, function and QP, target function and QP: [`nap_key`]'s layout), the
//! buffer (address bits 47..11) and its ring index, the bytes received so far, the message's
//! length, and an age.
//!
//! **Read side** (combinational, from the registers): the valid entry whose key is `key`
//! (`hit`, its index and fields; keys are unique: an entry is opened only on a miss); a free
//! entry (`any_free`, `free_index`: the highest); an expired entry (`expired`, an
//! [`ExpiredEntrySource`] joined whole to the error stage's [`ExpiredEntrySink`]: the highest
//! entry whose age reached [`AGE_LIMIT`] and that is not `touch`ed in this cycle, with the
//! fields its `NapIncomplete` event needs; the error stage answers `retire`).
//!
//! **Timers**: one shared prescaler ticks every `timeout / 4` cycles; an entry's age is cleared
//! when it is opened or `touch`ed (a packet of its message is at the head or being written)
//! and counts the ticks otherwise, up to [`AGE_LIMIT`] = 5. So an entry expires after more
//! than `timeout` and at most `1.25 x timeout` cycles without a touch, at the cost of 3 bits
//! per entry instead of a counter of `log2(timeout)` bits.
//!
//! **Write side**, per entry (a later rule wins): the age rule; `opening` at `open_index` (the
//! head's `key` and the fields given, age 0); `update` of `update_index`'s bytes received;
//! `finish` of `finish_index` (the message completed) and `expired.retire` of the expired
//! entry (freed by its timeout). Reset frees every entry and restarts the prescaler.
//!
//! Parameters: elaboration values `entries` (1..=32) and `timeout` (a power of two, at least 16).
use super::buffer_manager::BUFFER_ADDRESS_BITS;
use super::{NAP_LENGTH_BITS, NAP_OFFSET_BITS};
use crate::regs::RING_POINTER_BITS;
use hdl::bits::constant;
use hdl::formats::nic::{FUNCTION_BITS, QP_BITS};
use rust_hdl::prelude::*;

/// Bits of an open-message key: target QP (lowest), target function, source QP, source
/// function, source node.
pub const NAP_KEY_BITS: usize = 2 * QP_BITS + 2 * FUNCTION_BITS + 16;
/// Bits of an entry's index (up to 32 entries).
pub const NAP_INDEX_BITS: usize = 5;
/// Bits of an entry's age.
pub const AGE_BITS: usize = 3;
/// Ticks after which an untouched entry expires.
pub const AGE_LIMIT: u64 = 5;
/// Bits of the timer's prescaler (timeouts up to 2^24 cycles).
pub const PRESCALER_BITS: usize = 22;

/// The key of a message: (source node, source function, source QP, target function, target
/// QP) packed as the table stores it.
pub fn nap_key(src_node: u16, src_function: u8, src_qp: u8, dst_function: u8, dst_qp: u8) -> u64 {
    dst_qp as u64
        | (dst_function as u64) << QP_BITS
        | (src_qp as u64) << (QP_BITS + FUNCTION_BITS)
        | (src_function as u64) << (2 * QP_BITS + FUNCTION_BITS)
        | (src_node as u64) << (2 * QP_BITS + 2 * FUNCTION_BITS)
}

/// An expired open-message entry, at the table: what the error stage needs to post its
/// `NapIncomplete` (or to free it silently), and the error stage's answer `retire`.
#[derive(LogicInterface, Default)]
#[join = "ExpiredEntrySink"]
pub struct ExpiredEntrySource {
    /// An entry has expired (the highest one whose age reached [`AGE_LIMIT`] and that is not
    /// touched in this cycle).
    pub valid: Signal<Out, bool>,
    /// It discards its message (it has no buffer, so it names none).
    pub discarding: Signal<Out, bool>,
    /// Its key ([`nap_key`]'s layout).
    pub key: Signal<Out, Bits<NAP_KEY_BITS>>,
    /// Its bytes received.
    pub received: Signal<Out, Bits<NAP_LENGTH_BITS>>,
    /// Its buffer's ring index.
    pub ring_index: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Free it on this edge (its event, if any, is posted on this edge).
    pub retire: Signal<In, bool>,
}

/// An expired open-message entry, at the error stage.
#[derive(LogicInterface, Default)]
#[join = "ExpiredEntrySource"]
pub struct ExpiredEntrySink {
    /// An entry has expired.
    pub valid: Signal<In, bool>,
    /// It discards its message (no buffer).
    pub discarding: Signal<In, bool>,
    /// Its key.
    pub key: Signal<In, Bits<NAP_KEY_BITS>>,
    /// Its bytes received.
    pub received: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Its buffer's ring index.
    pub ring_index: Signal<In, Bits<RING_POINTER_BITS>>,
    /// The entry is freed on this edge.
    pub retire: Signal<Out, bool>,
}

/// The open-message table; see the module documentation.
#[derive(LogicBlock)]
pub struct NapTable {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The head packet's source node (with the four below: the key looked up).
    pub src_node: Signal<In, Bits<16>>,
    /// Its source function.
    pub src_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Its source QP.
    pub src_qp: Signal<In, Bits<QP_BITS>>,
    /// Its target function.
    pub dst_function: Signal<In, Bits<FUNCTION_BITS>>,
    /// Its target QP.
    pub dst_qp: Signal<In, Bits<QP_BITS>>,
    /// A valid entry holds `key`.
    pub hit: Signal<Out, bool>,
    /// Its index.
    pub hit_index: Signal<Out, Bits<NAP_INDEX_BITS>>,
    /// It discards its message.
    pub hit_discarding: Signal<Out, bool>,
    /// Its buffer (address bits 47..11).
    pub hit_buffer: Signal<Out, Bits<BUFFER_ADDRESS_BITS>>,
    /// Its buffer's ring index.
    pub hit_ring_index: Signal<Out, Bits<RING_POINTER_BITS>>,
    /// Its bytes received.
    pub hit_received: Signal<Out, Bits<NAP_LENGTH_BITS>>,
    /// Its message length.
    pub hit_length: Signal<Out, Bits<NAP_LENGTH_BITS>>,
    /// Some entry is free.
    pub any_free: Signal<Out, bool>,
    /// A free entry.
    pub free_index: Signal<Out, Bits<NAP_INDEX_BITS>>,
    /// The expired entry, offered to the error stage, and its `retire`.
    pub expired: ExpiredEntrySource,
    /// Clear this entry's age (a packet of its message is at the head or in flight).
    pub touch: Signal<In, bool>,
    /// The entry touched.
    pub touch_index: Signal<In, Bits<NAP_INDEX_BITS>>,
    /// Open entry `open_index` with `key` and the fields below on this edge.
    pub opening: Signal<In, bool>,
    /// The entry opened (a free one).
    pub open_index: Signal<In, Bits<NAP_INDEX_BITS>>,
    /// It discards its message (no buffer was found).
    pub open_discarding: Signal<In, bool>,
    /// Its buffer (address bits 47..11).
    pub open_buffer: Signal<In, Bits<BUFFER_ADDRESS_BITS>>,
    /// Its buffer's ring index.
    pub open_ring_index: Signal<In, Bits<RING_POINTER_BITS>>,
    /// Bytes received with its first packet.
    pub open_received: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Its message length.
    pub open_length: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Set entry `update_index`'s bytes received on this edge.
    pub update: Signal<In, bool>,
    /// The entry updated.
    pub update_index: Signal<In, Bits<NAP_INDEX_BITS>>,
    /// Its new bytes received.
    pub update_received: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Free entry `finish_index` on this edge (its message completed).
    pub finish: Signal<In, bool>,
    /// The entry freed.
    pub finish_index: Signal<In, Bits<NAP_INDEX_BITS>>,
    valid: Vec<DFF<bool>>,
    discarding: Vec<DFF<bool>>,
    keys: Vec<DFF<Bits<NAP_KEY_BITS>>>,
    buffers: Vec<DFF<Bits<BUFFER_ADDRESS_BITS>>>,
    ring_indices: Vec<DFF<Bits<RING_POINTER_BITS>>>,
    received: Vec<DFF<Bits<NAP_LENGTH_BITS>>>,
    lengths: Vec<DFF<Bits<NAP_LENGTH_BITS>>>,
    ages: Vec<DFF<Bits<AGE_BITS>>>,
    prescaler: DFF<Bits<PRESCALER_BITS>>,
    /// The key of the head's packet ([`nap_key`]'s layout).
    key: Signal<Local, Bits<NAP_KEY_BITS>>,
    tick: Signal<Local, bool>,
    expired_index: Signal<Local, Bits<NAP_INDEX_BITS>>,
    entry_ids: Vec<Constant<Bits<NAP_INDEX_BITS>>>,
    tick_last: Constant<Bits<PRESCALER_BITS>>,
    age_limit: Constant<Bits<AGE_BITS>>,
    age_one: Constant<Bits<AGE_BITS>>,
    prescaler_one: Constant<Bits<PRESCALER_BITS>>,
    function_shift: Constant<Bits<8>>,
    peer_qp_shift: Constant<Bits<8>>,
    peer_function_shift: Constant<Bits<8>>,
    node_shift: Constant<Bits<8>>,
}

impl NapTable {
    /// A table of `entries` entries (1..=32) whose entries expire after `timeout` to
    /// `1.25 x timeout` untouched cycles (`timeout` a power of two, 16..=2^24).
    pub fn new(entries: usize, timeout: usize) -> Self {
        assert!(
            (1..=1 << NAP_INDEX_BITS).contains(&entries),
            "NapTable: nap_open must be 1..=32, got {entries}"
        );
        assert!(
            timeout.is_power_of_two() && (16..=1 << (PRESCALER_BITS + 2)).contains(&timeout),
            "NapTable: nap_timeout must be a power of two from 16 to 2^24, got {timeout}"
        );
        fn regs<T: Synth>(n: usize) -> Vec<DFF<T>> {
            (0..n).map(|_| Default::default()).collect()
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            src_node: Default::default(),
            src_function: Default::default(),
            src_qp: Default::default(),
            dst_function: Default::default(),
            dst_qp: Default::default(),
            key: Default::default(),
            hit: Default::default(),
            hit_index: Default::default(),
            hit_discarding: Default::default(),
            hit_buffer: Default::default(),
            hit_ring_index: Default::default(),
            hit_received: Default::default(),
            hit_length: Default::default(),
            any_free: Default::default(),
            free_index: Default::default(),
            expired: Default::default(),
            touch: Default::default(),
            touch_index: Default::default(),
            opening: Default::default(),
            open_index: Default::default(),
            open_discarding: Default::default(),
            open_buffer: Default::default(),
            open_ring_index: Default::default(),
            open_received: Default::default(),
            open_length: Default::default(),
            update: Default::default(),
            update_index: Default::default(),
            update_received: Default::default(),
            finish: Default::default(),
            finish_index: Default::default(),
            valid: regs(entries),
            discarding: regs(entries),
            keys: regs(entries),
            buffers: regs(entries),
            ring_indices: regs(entries),
            received: regs(entries),
            lengths: regs(entries),
            ages: regs(entries),
            prescaler: Default::default(),
            tick: Default::default(),
            expired_index: Default::default(),
            entry_ids: (0..entries).map(|i| constant(i as u64)).collect(),
            tick_last: constant(timeout as u64 / 4 - 1),
            age_limit: constant(AGE_LIMIT),
            age_one: constant(1),
            prescaler_one: constant(1),
            function_shift: constant(QP_BITS as u64),
            peer_qp_shift: constant((QP_BITS + FUNCTION_BITS) as u64),
            peer_function_shift: constant((2 * QP_BITS + FUNCTION_BITS) as u64),
            node_shift: constant((2 * QP_BITS + 2 * FUNCTION_BITS) as u64),
        }
    }
}

impl Logic for NapTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prescaler);
        self.key.next = bit_cast::<NAP_KEY_BITS, QP_BITS>(self.dst_qp.val())
            | (bit_cast::<NAP_KEY_BITS, FUNCTION_BITS>(self.dst_function.val())
                << self.function_shift.val())
            | (bit_cast::<NAP_KEY_BITS, QP_BITS>(self.src_qp.val()) << self.peer_qp_shift.val())
            | (bit_cast::<NAP_KEY_BITS, FUNCTION_BITS>(self.src_function.val())
                << self.peer_function_shift.val())
            | (bit_cast::<NAP_KEY_BITS, 16>(self.src_node.val()) << self.node_shift.val());
        // The shared tick.
        self.tick.next = self.prescaler.q.val() == self.tick_last.val();
        self.prescaler.d.next = self.prescaler.q.val() + self.prescaler_one.val();
        if self.tick.val() | self.reset.val() {
            self.prescaler.d.next = 0.into();
        }
        // Read side: the hit, a free entry, an expired entry.
        self.hit.next = false;
        self.hit_index.next = 0.into();
        self.hit_discarding.next = false;
        self.hit_buffer.next = 0.into();
        self.hit_ring_index.next = 0.into();
        self.hit_received.next = 0.into();
        self.hit_length.next = 0.into();
        self.any_free.next = false;
        self.free_index.next = 0.into();
        self.expired.valid.next = false;
        self.expired_index.next = 0.into();
        self.expired.key.next = 0.into();
        self.expired.discarding.next = false;
        self.expired.ring_index.next = 0.into();
        self.expired.received.next = 0.into();
        for i in 0..self.entry_ids.len() {
            if self.valid[i].q.val() & (self.keys[i].q.val() == self.key.val()) {
                self.hit.next = true;
                self.hit_index.next = self.entry_ids[i].val();
                self.hit_discarding.next = self.discarding[i].q.val();
                self.hit_buffer.next = self.buffers[i].q.val();
                self.hit_ring_index.next = self.ring_indices[i].q.val();
                self.hit_received.next = self.received[i].q.val();
                self.hit_length.next = self.lengths[i].q.val();
            }
            if !self.valid[i].q.val() {
                self.any_free.next = true;
                self.free_index.next = self.entry_ids[i].val();
            }
            if self.valid[i].q.val()
                & (self.ages[i].q.val() == self.age_limit.val())
                & !(self.touch.val() & (self.touch_index.val() == self.entry_ids[i].val()))
            {
                self.expired.valid.next = true;
                self.expired_index.next = self.entry_ids[i].val();
                self.expired.key.next = self.keys[i].q.val();
                self.expired.discarding.next = self.discarding[i].q.val();
                self.expired.ring_index.next = self.ring_indices[i].q.val();
                self.expired.received.next = self.received[i].q.val();
            }
        }
        // Write side, per entry.
        for i in 0..self.entry_ids.len() {
            self.valid[i].clock.next = self.clock.val();
            self.discarding[i].clock.next = self.clock.val();
            self.keys[i].clock.next = self.clock.val();
            self.buffers[i].clock.next = self.clock.val();
            self.ring_indices[i].clock.next = self.clock.val();
            self.received[i].clock.next = self.clock.val();
            self.lengths[i].clock.next = self.clock.val();
            self.ages[i].clock.next = self.clock.val();
            self.valid[i].d.next = self.valid[i].q.val();
            self.discarding[i].d.next = self.discarding[i].q.val();
            self.keys[i].d.next = self.keys[i].q.val();
            self.buffers[i].d.next = self.buffers[i].q.val();
            self.ring_indices[i].d.next = self.ring_indices[i].q.val();
            self.received[i].d.next = self.received[i].q.val();
            self.lengths[i].d.next = self.lengths[i].q.val();
            self.ages[i].d.next = self.ages[i].q.val();
            if self.touch.val() & (self.touch_index.val() == self.entry_ids[i].val()) {
                self.ages[i].d.next = 0.into();
            } else if self.tick.val() & (self.ages[i].q.val() != self.age_limit.val()) {
                self.ages[i].d.next = self.ages[i].q.val() + self.age_one.val();
            }
            if self.opening.val() & (self.open_index.val() == self.entry_ids[i].val()) {
                self.valid[i].d.next = true;
                self.discarding[i].d.next = self.open_discarding.val();
                self.keys[i].d.next = self.key.val();
                self.buffers[i].d.next = self.open_buffer.val();
                self.ring_indices[i].d.next = self.open_ring_index.val();
                self.received[i].d.next = self.open_received.val();
                self.lengths[i].d.next = self.open_length.val();
                self.ages[i].d.next = 0.into();
            }
            if self.update.val() & (self.update_index.val() == self.entry_ids[i].val()) {
                self.received[i].d.next = self.update_received.val();
            }
            if (self.finish.val() & (self.finish_index.val() == self.entry_ids[i].val()))
                | (self.expired.retire.val()
                    & (self.expired_index.val() == self.entry_ids[i].val()))
            {
                self.valid[i].d.next = false;
            }
            if self.reset.val() {
                self.valid[i].d.next = false;
            }
        }
    }
}

/// The offset field is narrower than a length (a packet starts inside its message).
const _: () = assert!(NAP_OFFSET_BITS < NAP_LENGTH_BITS);

#[test]
fn nap_table_is_synthesizable() {
    let mut uut = NapTable::new(8, 256);
    uut.connect_all();
    yosys_validate("nap_table", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "nap_open must be 1..=32")]
fn nap_table_refuses_too_many_entries() {
    let _ = NapTable::new(33, 256);
}
