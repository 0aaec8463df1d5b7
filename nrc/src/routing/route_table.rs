//! `RouteTable`: the router's run-time routing table, destination node -> set of allowed
//! output ports (`PORTS` bits, bit `p` = output port `p` may carry the packet).
//!
//! **Depth.** `nodes` entries (elaboration value); an entry's address is the low `AB` bits of
//! the destination, `AB = clog2(nodes)`. A destination at or beyond `nodes` has no entry: its
//! lookup answers the empty set (no route), a write to it is ignored and `read` shows zero.
//!
//! **Storage: block RAM, one copy per lookup port plus one for the management read.** Every
//! input port looks up one head per cycle, and a block RAM has one read port, so each lookup
//! port gets its own copy (`RAM<Bits<PORTS>, AB>`, registered read: an `SB_RAM40_4K` per copy
//! on iCE40 up to 256 entries of up to 16 ports); the management `read` gets one more copy,
//! so it is never delayed by lookups. All copies are written together by the one management
//! write, so they always hold the same entries and the router behaves as one table per input
//! port with equal contents (the register map has one indirect port; per-input-port contents
//! would need an input-port field there). Registers instead of RAM would cost `nodes * PORTS`
//! flip-flops and a `nodes`-way multiplexer per copy (1280 flip-flops per copy for the
//! default 256 x 5): only worth it for tables of a few tens of entries, not built here.
//!
//! **Management side** ([`RouteTableSink`], the register file's indirect port as `nrc_mgmt`
//! drives it): on every edge where `write` is high, the entry at `index` becomes `ports` (in
//! every copy). `read` shows, in each cycle, the entry at the `index` of the *previous* cycle
//! as the table holds it in this cycle (writes made on the edge that began the cycle
//! included): a changed `index` shows its entry one cycle later. With the register file's
//! timing (a write takes effect on the edge after it is taken, a read samples `read` on the
//! edge after it is taken) a read of `read` taken on the very edge after a write of `index`
//! was taken returns the previous index's entry; a read taken one cycle later or more, or any
//! read after a write of `ports`, returns the current entry. The management agent never
//! issues the first pattern (one request is all reads or all writes, and the next request
//! starts after the previous response); the bench checks the rule cycle by cycle.
//!
//! **Lookups** ([`RouteLookupSink`]): `dst` in cycle `c`, its entry on `allowed` in cycle
//! `c + 1`, every cycle (no valid: the RAM reads whatever `dst` shows).
//!
//! **A write racing a lookup of the same entry** (the write's edge is the lookup's read
//! edge): the lookup sees the NEW entry, whole. Defined as "a lookup sees every write made on
//! or before the edge that reads it". Block RAMs do not define a read of the word being
//! written, so on such an edge the copy reads another word (address bit 0 flipped) and the
//! written entry is forwarded from a register instead; as the two addresses then always
//! differ, Yosys maps the bare RAM with no collision logic of its own (the trick of
//! `hdl::fifo::bram_fifo`).
//!
//! **Reset**: none. Block RAM has no reset and the table is configuration: it keeps its
//! entries across the router's reset (the configuration loader rewrites them after one). It
//! powers up empty (every entry zero: no route), the power-up state of iCE40 block RAMs and of
//! both simulators' RAM.
//!
//! Parameters: `PORTS` output ports (entry bits, 1..=64); `LOOKUPS` lookup ports (at least 1);
//! `AB` address bits = `clog2(nodes)`, 1..=16 (checked by [`RouteTable::new`]).
use super::{defaults, RouteLookupSink, NODE_BITS};
use crate::nrc_mgmt::RouteTableSink;
use rust_hdl::prelude::*;

/// The routing table; see the module documentation.
#[derive(LogicBlock)]
pub struct RouteTable<const PORTS: usize, const LOOKUPS: usize, const AB: usize> {
    /// Clock of the RAMs and registers.
    pub clock: Signal<In, Clock>,
    /// Indirect access from the register file.
    pub management: RouteTableSink<PORTS>,
    /// One lookup port per input port.
    pub lookups: [RouteLookupSink<PORTS>; LOOKUPS],
    /// Copy `c < LOOKUPS` serves `lookups[c]`; copy `LOOKUPS` serves `management.read`.
    copies: Vec<RAM<Bits<PORTS>, AB>>,
    /// Per copy: the node it reads this cycle (`NODE_BITS` wide).
    node: Vec<Signal<Local, Bits<NODE_BITS>>>,
    /// Per copy: the entry's address in the RAM.
    address: Vec<Signal<Local, Bits<AB>>>,
    /// Per copy: this edge writes the entry this copy reads.
    hit: Vec<Signal<Local, bool>>,
    /// Per copy: the last edge wrote the entry read, so the RAM's output is replaced.
    forwarded: Vec<DFF<bool>>,
    /// Per copy: the node read on the last edge is at or beyond `nodes`.
    beyond: Vec<DFF<bool>>,
    /// Per copy: the entry read.
    entry: Vec<Signal<Local, Bits<PORTS>>>,
    /// The entry offered for writing on the last edge (forwarded on a hit).
    written: DFF<Bits<PORTS>>,
    /// A write of an entry that exists happens on this edge.
    write_enable: Signal<Local, bool>,
    write_address: Signal<Local, Bits<AB>>,
    /// `nodes` modulo 2^16, and whether nodes below 2^16 bound the table at all.
    nodes: Constant<Bits<NODE_BITS>>,
    bounded: Constant<bool>,
    /// Address bit 0: flipped on a hit so that the RAM never reads the word it writes.
    flip: Constant<Bits<AB>>,
    empty: Constant<Bits<PORTS>>,
}

impl<const PORTS: usize, const LOOKUPS: usize, const AB: usize> RouteTable<PORTS, LOOKUPS, AB> {
    /// A table of `nodes` entries. Panics naming the parameter unless `2 <= nodes <= 2^16`,
    /// `AB == clog2(nodes)`, `1 <= PORTS <= 64` and `LOOKUPS >= 1`.
    pub fn new(nodes: usize) -> Self {
        assert!(
            (2..=1 << NODE_BITS).contains(&nodes),
            "RouteTable: nodes must be 2..=65536 (16-bit node IDs), got {nodes}"
        );
        assert!(
            AB == hdl::bits::clog2(nodes),
            "RouteTable<AB = {AB}>: AB (address bits) must be clog2(nodes = {nodes}) = {}",
            hdl::bits::clog2(nodes)
        );
        assert!(
            (1..=64).contains(&PORTS),
            "RouteTable: PORTS must be 1..=64, got {PORTS}"
        );
        assert!(LOOKUPS >= 1, "RouteTable: LOOKUPS must be at least 1");
        let copies = LOOKUPS + 1;
        Self {
            clock: Default::default(),
            management: Default::default(),
            lookups: std::array::from_fn(|_| Default::default()),
            copies: (0..copies).map(|_| Default::default()).collect(),
            node: defaults(copies),
            address: defaults(copies),
            hit: defaults(copies),
            forwarded: defaults(copies),
            beyond: defaults(copies),
            entry: defaults(copies),
            written: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            nodes: Constant::new(Bits::from((nodes % (1 << NODE_BITS)) as u64)),
            bounded: Constant::new(nodes < 1 << NODE_BITS),
            flip: Constant::new(Bits::from(1u64)),
            empty: Constant::new(Bits::default()),
        }
    }
}

impl<const PORTS: usize, const LOOKUPS: usize, const AB: usize> Logic
    for RouteTable<PORTS, LOOKUPS, AB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, written);
        // The one write, to every copy; a node beyond the table has no entry to write.
        self.write_address.next = self.management.index.val().get_bits::<AB>(0);
        self.write_enable.next = self.management.write.val()
            & !((self.management.index.val() >= self.nodes.val()) & self.bounded.val());
        self.written.d.next = self.management.ports.val();
        // What each copy reads: a lookup port's node, or the management index.
        for c in 0..LOOKUPS {
            self.node[c].next = self.lookups[c].dst.val();
        }
        for c in LOOKUPS..(LOOKUPS + 1) {
            self.node[c].next = self.management.index.val();
        }
        for c in 0..(LOOKUPS + 1) {
            self.copies[c].write_clock.next = self.clock.val();
            self.copies[c].read_clock.next = self.clock.val();
            self.copies[c].write_address.next = self.write_address.val();
            self.copies[c].write_data.next = self.management.ports.val();
            self.copies[c].write_enable.next = self.write_enable.val();
            self.forwarded[c].clock.next = self.clock.val();
            self.beyond[c].clock.next = self.clock.val();
            self.address[c].next = self.node[c].val().get_bits::<AB>(0);
            self.hit[c].next =
                self.write_enable.val() & (self.address[c].val() == self.write_address.val());
            // On a hit, read another word (never the one written) and forward the write.
            self.copies[c].read_address.next = self.address[c].val();
            if self.hit[c].val() {
                self.copies[c].read_address.next = self.address[c].val() ^ self.flip.val();
            }
            self.forwarded[c].d.next = self.hit[c].val();
            self.beyond[c].d.next = (self.node[c].val() >= self.nodes.val()) & self.bounded.val();
            self.entry[c].next = self.copies[c].read_data.val();
            if self.forwarded[c].q.val() {
                self.entry[c].next = self.written.q.val();
            }
            if self.beyond[c].q.val() {
                self.entry[c].next = self.empty.val();
            }
        }
        for c in 0..LOOKUPS {
            self.lookups[c].allowed.next = self.entry[c].val();
        }
        for c in LOOKUPS..(LOOKUPS + 1) {
            self.management.read.next = self.entry[c].val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_table_is_synthesizable() {
        let mut uut = RouteTable::<5, 2, 8>::new(256);
        uut.connect_all();
        yosys_validate("route_table", &generate_verilog(&uut)).unwrap();
        let mut uut = RouteTable::<3, 1, 5>::new(20);
        uut.connect_all();
        yosys_validate("route_table_20", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(
        expected = "RouteTable<AB = 7>: AB (address bits) must be clog2(nodes = 256) = 8"
    )]
    fn route_table_rejects_wrong_address_bits() {
        let _ = RouteTable::<5, 1, 7>::new(256);
    }

    #[test]
    #[should_panic(expected = "RouteTable: nodes must be 2..=65536 (16-bit node IDs), got 1")]
    fn route_table_rejects_one_node() {
        let _ = RouteTable::<5, 1, 0>::new(1);
    }
}
