//! The NMA core: the management agent assembled from its units, the part the NRC and NIC
//! wrappers share (they add the register file, the loader and their own mesh or network
//! interface around it).
//!
//! ```text
//! from_mesh -> NmpUnpacker -> NmpDistributor -+-> RegAccess<A> ----> registers / register_responses
//!                   |                         |       |  (also refuses unknown types)
//!                   |                         +-> EepBridge -> EepArbiter -> EepAccess -> i2c
//!                   |  words                          |  |     ^ loader_command / loader_result
//!                   v                                 |  |
//!              PacketStore <-- w6/w7 --- (units) faults -> ActiveReport
//!                   |  words                      |   v  v
//!                   +---------------> NmpPacker <- NmpCollector
//!                                         |
//!                                         +-> NmpOutputFifo -> to_mesh
//! ```
//!
//! **Tickets and the store.** The unpacker writes each request's words into the
//! [`PacketStore`] and passes on a narrow request ticket; the units read what they need of the
//! words from the store (the write data), answer with response tickets (the register unit
//! writes the registers' data into the store), and the packer builds each response from its
//! ticket and the request's words ([`super::ticket`]). A request holds its store slot from its
//! head's arrival until its response's tail has left the packer; the [`SlotPool`] lends the
//! four slots (at most four requests are held: see [`STORE_SLOTS`](super::ticket::STORE_SLOTS)), so the unpacker takes the
//! next request while the packer sends the previous response, and the collector's ticket
//! register lets the register unit (and the unpacker behind it) go on as soon as the response
//! ticket is collected. That overlap sets the sustained rate: one register request per 10
//! flits plus the ticket's turn (`bench mgmt-sim` prints the figure).
//!
//! **Mesh side.** `from_mesh` carries request flits ([`FLIT_BITS`] bits per beat) with `port` =
//! the port the packet arrived on (the unpacker samples it with the head) and `last` on the
//! tail; the unpacker ends a packet at its tail flit, so `last` is not needed here (a `last`
//! that disagrees with the flits is the mesh's fault: the unpacker's framing checks drop the
//! packet as malformed). `to_mesh` carries response and report flits with `port` = the output
//! port (the forward route's current hop, the same on every flit of a packet) and `last` on
//! the tail flit.
//!
//! **Settings** (from the chip's register file, taken as they are): `chip_id`,
//! `report_enable`, `fault_mask`, `report_route`, `report_dest` (see [`ActiveReport`]),
//! `eeprom_device` (A2..A0 of the EEPROM, taken with each command). **Events** (one-cycle
//! pulses for the chip's counters): `dropped_wrong_id`, `dropped_malformed` (unpacker),
//! `dropped_no_route` (packer; never for the agent's own responses, whose route always has the
//! arrival hop), `reports_sent` (the packer took a fault report), `error_responses`
//! (the packer took an error response, of the register or the EEPROM family; one
//! cycle after). **Status**: `held`, the beats waiting inside (distributor outputs, output
//! FIFO count).
//!
//! **Order and backpressure.** One request stream, dispatched in order (see
//! [`NmpDistributor`]): register responses are in request order, EEPROM responses too, but a
//! register request after an EEPROM request is answered first (the EEPROM takes milliseconds).
//! The EEPROM bridge serves one request at a time; a second EEPROM request waits in the
//! distributor's slot and a third holds the whole input (head-of-line blocking, bounded
//! storage). Responses go before fault reports ([`NmpCollector`]). Nothing is dropped for
//! lack of room: `to_mesh` not ready stops the packer, the output FIFO fills, the packer stops, the units hold
//! their responses, and `from_mesh.ready` falls.
//!
//! **EEPROM sharing.** The configuration loader (`loader_command` / `loader_result`) and the
//! agent's EEPROM bridge share the [`EepAccess`] through an [`EepArbiter`], the loader first.
//!
//! **Latency** (register read, no backpressure, the register file's 2-cycle read): the tail
//! taken at the end of cycle `c`, the request ticket offered in `c + 1` (unpacker) and passed
//! straight through by the distributor, the register access taken at the end of
//! `c + 1`, the answer in `c + 3` (its data written into the store) and the response ticket
//! with it, which the collector's registered choice offers to the packer in `c + 4`; the
//! packer reads the request's head entry from the store then, its head flit goes into the
//! output FIFO at the end of `c + 5`, and is on `to_mesh` in `c + 7` (the FIFO's block RAM
//! adds two cycles). A write takes one cycle more (its data is read from the store first).
//!
//! **Reset** (synchronous, to every unit; the register file must share it): every request and
//! response inside is dropped (the management server's timeout and retry cover them), the flits
//! of a packet on `to_mesh` stop without a tail, an EEPROM command in progress stops (a write may
//! have reached the array), a loader command in progress gets no result.
//!
//! Parameters: `A` register address bits (15 for the NRC, 12 for the NIC), `F` fault inputs
//! (1..=64); [`NmaCore::new`]: `mgmt_vc` (the configuration's `network.mgmt_vc`), and the
//! EEPROM unit's `quarter`, `stretch_limit`, `poll_limit` (see [`EepAccess::new`]).
use super::constant;
use super::eep_access::EEP_DATA_BITS;
use super::eep_access::{EepAccess, EepCommandSink, EepCommandSource, EepResultSource};
use super::eep_arbiter::EepArbiter;
use super::eep_bridge::EepBridge;
use super::i2c_master::I2cPins;
use super::nmp_output_fifo::NMP_OUTPUT_FIFO_DEPTH;
use super::packet_store::{StoreReader, StoreWriteSource};
use super::relay_station::{RsBeatSink, RsBeatSource, RS_PORT_BITS};
use super::slot_pool::SlotLease;
use super::ticket::{
    REQUEST_TICKET_BITS, RESPONSE_REPORT, RESPONSE_TICKET_BITS, RESPONSE_TYPE, SLOT_BITS,
    STORE_WORD_BITS,
};
use super::{
    ActiveReport, NmpCollector, NmpDistributor, NmpPacker, NmpUnpacker, PacketStore, RegAccess,
    SlotPool,
};
use crate::formats::mgmt::NmpType;
use crate::formats::FLIT_BITS;
use crate::regmap::port::{RegRequestSource, RegResponseSink};
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// Bits of the output FIFO's count.
const FIFO_COUNT_BITS: usize = crate::fifo::fifo_count_bits(NMP_OUTPUT_FIFO_DEPTH);
/// Bits of `held`: the distributor's two outputs and the output FIFO's count.
pub const HELD_BITS: usize = 2 + FIFO_COUNT_BITS;

/// Data bits of the registers the agent reaches.
pub const NMA_DATA_BITS: usize = super::reg_access::REGISTER_DATA_BITS;

/// The management agent; see the module documentation.
#[derive(LogicBlock)]
pub struct NmaCore<const A: usize, const F: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (shared with the register file).
    pub reset: Signal<In, bool>,
    /// Request flits; `port` = the arrival port.
    pub from_mesh: RsBeatSink<FLIT_BITS, RS_PORT_BITS>,
    /// Response and report flits; `port` = the output port, `last` on the tail.
    pub to_mesh: RsBeatSource<FLIT_BITS, RS_PORT_BITS>,
    /// Register accesses to the chip's register file.
    pub registers: RegRequestSource<A, NMA_DATA_BITS>,
    /// The register file's answers (always taken).
    pub register_responses: RegResponseSink<NMA_DATA_BITS>,
    /// The configuration loader's EEPROM commands (served first).
    pub loader_command: EepCommandSink,
    /// Their results.
    pub loader_result: EepResultSource,
    /// The EEPROM's I2C bus.
    pub i2c: I2cPins,
    /// Fault levels of the monitored units.
    pub faults: Signal<In, Bits<F>>,
    /// This chip's ID (register).
    pub chip_id: Signal<In, Bits<16>>,
    /// Fault reporting enabled (register).
    pub report_enable: Signal<In, bool>,
    /// Masked faults, 1 = masked (register).
    pub fault_mask: Signal<In, Bits<F>>,
    /// Fault reports' forward route words `w1` (low) and `w2` (high) (registers).
    pub report_route: Signal<In, Bits<128>>,
    /// Fault reports' DestID (register).
    pub report_dest: Signal<In, Bits<16>>,
    /// A2..A0 of the EEPROM (register).
    pub eeprom_device: Signal<In, Bits<3>>,
    /// A request for another chip was dropped (event).
    pub dropped_wrong_id: Signal<Out, bool>,
    /// A malformed packet was dropped (event).
    pub dropped_malformed: Signal<Out, bool>,
    /// A beat without an output port was dropped (event).
    pub dropped_no_route: Signal<Out, bool>,
    /// A fault report was queued for sending (event).
    pub reports_sent: Signal<Out, bool>,
    /// An error response was queued for sending (event).
    pub error_responses: Signal<Out, bool>,
    /// Beats held inside (status): bits 1..0 the distributor's outputs (a register request
    /// offered, the EEPROM slot), the bits above them the output FIFO's count.
    pub held: Signal<Out, Bits<HELD_BITS>>,
    unpacker: NmpUnpacker,
    slots: SlotPool,
    store: PacketStore,
    distributor: NmpDistributor,
    reg_access: RegAccess<A>,
    eep_bridge: EepBridge,
    eep_arbiter: EepArbiter,
    eep_access: EepAccess,
    active_report: ActiveReport<F>,
    collector: NmpCollector,
    output_fifo: crate::nmp_output_fifo!(NMP_OUTPUT_FIFO_DEPTH),
    packer: NmpPacker,
    error_pulse: DFF<bool>,
    /// `from_mesh.last`, acknowledged: the unpacker ends packets at their tail flits (a
    /// name with "unused" passes Verilator's lint; nothing reads it, synthesis removes it).
    unused_last: Signal<Local, bool>,
    /// The `nmp_type` of the ticket the packer takes.
    queued_type: Signal<Local, Bits<6>>,
    type_lsb: Constant<Bits<7>>,
    report_lsb: Constant<Bits<7>>,
    register_error: Constant<Bits<6>>,
    eeprom_error: Constant<Bits<6>>,
}

impl<const A: usize, const F: usize> NmaCore<A, F> {
    /// The agent whose packets travel on VC `mgmt_vc` and whose EEPROM unit has `quarter`
    /// cycles per quarter SCL period, tolerates `stretch_limit` quarters of clock stretching
    /// and `poll_limit` refused polls. Panics (naming the parameter) as its units do.
    pub fn new(mgmt_vc: u8, quarter: u32, stretch_limit: u32, poll_limit: u32) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            from_mesh: Default::default(),
            to_mesh: Default::default(),
            registers: Default::default(),
            register_responses: Default::default(),
            loader_command: Default::default(),
            loader_result: Default::default(),
            i2c: Default::default(),
            faults: Default::default(),
            chip_id: Default::default(),
            report_enable: Default::default(),
            fault_mask: Default::default(),
            report_route: Default::default(),
            report_dest: Default::default(),
            eeprom_device: Default::default(),
            dropped_wrong_id: Default::default(),
            dropped_malformed: Default::default(),
            dropped_no_route: Default::default(),
            reports_sent: Default::default(),
            error_responses: Default::default(),
            unpacker: NmpUnpacker::new(),
            slots: SlotPool::default(),
            store: Default::default(),
            distributor: NmpDistributor::default(),
            reg_access: RegAccess::new(),
            eep_bridge: EepBridge::default(),
            eep_arbiter: EepArbiter::default(),
            eep_access: EepAccess::new(quarter, stretch_limit, poll_limit),
            active_report: ActiveReport::new(),
            collector: NmpCollector::default(),
            output_fifo: Default::default(),
            packer: NmpPacker::new(mgmt_vc),
            error_pulse: Default::default(),
            unused_last: Default::default(),
            held: Default::default(),
            queued_type: Default::default(),
            type_lsb: constant(RESPONSE_TYPE.lsb as u64),
            report_lsb: constant(RESPONSE_REPORT.lsb as u64),
            register_error: constant(NmpType::RegErrorResponse.code() as u64),
            eeprom_error: constant(NmpType::EepErrorResponse.code() as u64),
        }
    }
}

impl<const A: usize, const F: usize> Logic for NmaCore<A, F> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            unpacker,
            slots,
            store,
            distributor,
            reg_access,
            eep_bridge,
            eep_arbiter,
            eep_access,
            active_report,
            collector,
            output_fifo,
            packer
        );
        dff_setup!(self, clock, error_pulse);
        self.unpacker.reset.next = self.reset.val();
        self.slots.reset.next = self.reset.val();
        self.distributor.reset.next = self.reset.val();
        self.reg_access.reset.next = self.reset.val();
        self.eep_bridge.reset.next = self.reset.val();
        self.eep_arbiter.reset.next = self.reset.val();
        self.eep_access.reset.next = self.reset.val();
        self.active_report.reset.next = self.reset.val();
        self.collector.reset.next = self.reset.val();
        self.output_fifo.reset.next = self.reset.val();
        self.packer.reset.next = self.reset.val();
        self.unpacker.chip_id.next = self.chip_id.val();
        self.packer.chip_id.next = self.chip_id.val();
        // Mesh in: flits to the unpacker, the arrival port beside them.
        self.unpacker.flits.valid.next = self.from_mesh.valid.val();
        self.unpacker.flits.data.next = self.from_mesh.data.val();
        self.unpacker.in_port.next = self.from_mesh.port.val();
        self.from_mesh.ready.next = self.unpacker.flits.ready.val();
        self.unused_last.next = self.from_mesh.last.val();
        // Requests to the function units; their words into the store.
        StreamSource::<Bits<REQUEST_TICKET_BITS>>::join(
            &mut self.unpacker.requests,
            &mut self.distributor.requests,
        );
        StreamSource::<Bits<REQUEST_TICKET_BITS>>::join(
            &mut self.distributor.registers,
            &mut self.reg_access.requests,
        );
        StreamSource::<Bits<REQUEST_TICKET_BITS>>::join(
            &mut self.distributor.eeprom,
            &mut self.eep_bridge.requests,
        );
        // Store slots: lent to the unpacker with each head, free again when the packer takes
        // the response ticket (with its packet's tail; a fault report holds no slot).
        SlotLease::join(&mut self.unpacker.slots, &mut self.slots.lease);
        self.slots.sent.done.next = self.collector.beats.valid.val()
            & self.collector.beats.ready.val()
            & !self
                .collector
                .beats
                .data
                .val()
                .get_bit(self.report_lsb.val().index());
        self.slots.sent.slot.next = self.collector.beats.data.val().get_bits::<SLOT_BITS>(0);
        StoreWriteSource::join(&mut self.unpacker.store, &mut self.store.requests);
        StoreWriteSource::join(&mut self.reg_access.answers, &mut self.store.answers);
        StoreReader::<STORE_WORD_BITS>::join(&mut self.reg_access.data, &mut self.store.registers);
        StoreReader::<EEP_DATA_BITS>::join(&mut self.eep_bridge.data, &mut self.store.eeprom);
        StoreReader::<STORE_WORD_BITS>::join(&mut self.packer.store, &mut self.store.packer);
        // Registers.
        RegRequestSource::<A, NMA_DATA_BITS>::link(
            &mut self.registers,
            &mut self.reg_access.register_request,
        );
        RegResponseSink::<NMA_DATA_BITS>::link(
            &mut self.register_responses,
            &mut self.reg_access.register_response,
        );
        // EEPROM: the loader (first) and the bridge share the EEPROM unit.
        EepCommandSink::link(
            &mut self.loader_command,
            &mut self.eep_arbiter.first_command,
        );
        EepResultSource::link(&mut self.loader_result, &mut self.eep_arbiter.first_result);
        EepCommandSource::join(
            &mut self.eep_bridge.command,
            &mut self.eep_arbiter.second_command,
        );
        EepResultSource::join(
            &mut self.eep_arbiter.second_result,
            &mut self.eep_bridge.result,
        );
        EepCommandSource::join(&mut self.eep_arbiter.command, &mut self.eep_access.command);
        EepResultSource::join(&mut self.eep_access.result, &mut self.eep_arbiter.result);
        I2cPins::link(&mut self.i2c, &mut self.eep_access.i2c);
        self.eep_access.device.next = self.eeprom_device.val();
        // Fault reports.
        self.active_report.faults.next = self.faults.val();
        self.active_report.report_enable.next = self.report_enable.val();
        self.active_report.fault_mask.next = self.fault_mask.val();
        self.packer.report_route.next = self.report_route.val();
        self.packer.report_dest.next = self.report_dest.val();
        // Responses and reports out.
        StreamSource::<Bits<RESPONSE_TICKET_BITS>>::join(
            &mut self.reg_access.responses,
            &mut self.collector.responses,
        );
        StreamSource::<Bits<RESPONSE_TICKET_BITS>>::join(
            &mut self.eep_bridge.responses,
            &mut self.collector.eeprom,
        );
        StreamSource::<Bits<RESPONSE_TICKET_BITS>>::join(
            &mut self.active_report.reports,
            &mut self.collector.reports,
        );
        // The packer reads the collector's (locked) ticket while it sends the packet's flits.
        StreamSource::<Bits<RESPONSE_TICKET_BITS>>::join(
            &mut self.collector.beats,
            &mut self.packer.responses,
        );
        // Packed flits into the output FIFO: the packer's output port, `last` on the tail.
        self.output_fifo.sink.valid.next = self.packer.flits.valid.val();
        self.output_fifo.sink.data.next = self.packer.flits.data.val();
        self.output_fifo.sink.port.next = self.packer.out_port.val();
        self.output_fifo.sink.last.next = self.packer.tail.val();
        self.packer.flits.ready.next = self.output_fifo.sink.ready.val();
        // Mesh out. The FIFO's `valid` is a flip-flop that a synchronous reset clears only at
        // the edge, so it is masked in the reset cycle: nothing is offered (or taken) in reset.
        self.to_mesh.valid.next = self.output_fifo.source.valid.val() & !self.reset.val();
        self.to_mesh.data.next = self.output_fifo.source.data.val();
        self.to_mesh.last.next = self.output_fifo.source.last.val();
        self.to_mesh.port.next = self.output_fifo.source.port.val();
        self.output_fifo.source.ready.next = self.to_mesh.ready.val() & !self.reset.val();
        // Events.
        self.queued_type.next = self
            .collector
            .beats
            .data
            .val()
            .get_bits::<6>(self.type_lsb.val().index());
        self.error_pulse.d.next = self.collector.beats.valid.val()
            & self.collector.beats.ready.val()
            & ((self.queued_type.val() == self.register_error.val())
                | (self.queued_type.val() == self.eeprom_error.val()))
            & !self.reset.val();
        self.error_responses.next = self.error_pulse.q.val();
        self.dropped_wrong_id.next = self.unpacker.dropped_wrong_id.val();
        self.dropped_malformed.next = self.unpacker.dropped_malformed.val();
        self.dropped_no_route.next = self.packer.dropped_no_route.val();
        self.reports_sent.next = self.active_report.reports_sent.val();
        self.held.next = bit_cast::<HELD_BITS, 2>(self.distributor.held.val())
            | (bit_cast::<HELD_BITS, FIFO_COUNT_BITS>(self.output_fifo.count.val()) << 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nma_core_is_synthesizable() {
        let mut uut = NmaCore::<12, 4>::new(3, 2, 40, 8);
        uut.connect_all();
        yosys_validate("nma_core", &generate_verilog(&uut)).unwrap();
    }
}
