//! Active report unit: turns fault EVENTS of the monitored units into fault report packets
//! (type 0x20, [`NmpType::FaultReport`]) for the management server.
//!
//! Ports: `clock`, `reset`, `faults` (level signals, one per monitored fault), `report_enable`,
//! `fault_mask` (1 = masked), `reports` (source: response tickets marked as reports), `reports_sent`
//! (one-cycle pulse the cycle after a report was taken; the counter lives in the register
//! file).
//!
//! An event is a rising edge of an unmasked fault while `report_enable` is high (the previous
//! level is kept in a register; reset clears it to zero, so a fault already high after reset
//! is one event). Masking, unmasking or enabling while a fault is high is not an edge and
//! reports nothing; events already pending when reporting is disabled or masked are still
//! sent (they happened while enabled).
//!
//! Reports: `pending` collects events. When no report is on offer (or the one on offer is
//! taken in this cycle) and an event is pending or arriving, a report is offered from the next
//! cycle carrying every such bit in `w6`, and `pending` restarts empty. The offered report is
//! held unchanged until taken (the stream rules). While it waits, a new event of a fault
//! whose bit it already carries merges into it (that fault is reported, and the report has not
//! left yet), and events of other faults collect in `pending` for the next report. So a
//! fault that stays high is reported once, one that toggles while a report waits adds
//! nothing, and no event is lost: every event is carried by a report taken after it. At most
//! one report waits, and a burst of events costs at most two reports.
//!
//! The report's ticket ([`ResponseTicket`](super::ticket::ResponseTicket)): `report` set, type
//! 0x20, error 0, nothing echoed, `id` a running transaction ID (0 after reset, +1 per report
//! taken), `data` the fault bits (bit `i` = `faults[i]`). The packer sends it as the packet
//! `dst = report_dest`, `src = chip_id`; `w0`: `dest_type` NIC, VPs 0, the transaction ID, type
//! 0x20, error 0; `w1`/`w2` = `report_route` (`current` taken as the next hop); `w3`, `w4`,
//! `w5`, `w7` zero; `w6` = the fault bits. `report_route`, `report_dest` and `chip_id` are
//! configuration registers the packer reads as they are: change them while reporting is
//! disabled and no report waits.
//!
//! Reset (synchronous): no report offered, nothing pending, previous levels zero, transaction
//! ID zero.
//!
//! Parameter: `F`, the number of fault inputs (1..=64, the bits of `w6`).
use super::constant;
use super::ticket::{
    RESPONSE_DATA, RESPONSE_ID, RESPONSE_REPORT, RESPONSE_TICKET_BITS, RESPONSE_TYPE,
};
use crate::formats::mgmt::NmpType;
use crate::stream::StreamSource;
use rust_hdl::prelude::*;

/// The active report unit; see the module documentation.
#[derive(LogicBlock)]
pub struct ActiveReport<const F: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Fault levels.
    pub faults: Signal<In, Bits<F>>,
    /// Reporting is enabled (register).
    pub report_enable: Signal<In, bool>,
    /// Masked faults (register; 1 = masked).
    pub fault_mask: Signal<In, Bits<F>>,
    /// Fault reports (tickets).
    pub reports: StreamSource<Bits<RESPONSE_TICKET_BITS>>,
    /// A report was taken on the last edge.
    pub reports_sent: Signal<Out, bool>,
    previous: DFF<Bits<F>>,
    pending: DFF<Bits<F>>,
    offered: DFF<bool>,
    report_bits: DFF<Bits<F>>,
    transaction_id: DFF<Bits<16>>,
    sent_pulse: DFF<bool>,
    /// Events this cycle.
    rising: Signal<Local, Bits<F>>,
    /// Events not carried by the waiting report.
    fresh: Signal<Local, Bits<F>>,
    /// Events to report next.
    collected: Signal<Local, Bits<F>>,
    /// The offered report is taken on this edge.
    taken: Signal<Local, bool>,
    /// The ticket's constant bits: `report`, the type.
    ticket_constant: Constant<Bits<RESPONSE_TICKET_BITS>>,
    id_lsb: Constant<Bits<7>>,
    data_lsb: Constant<Bits<7>>,
}

impl<const F: usize> ActiveReport<F> {
    /// A unit watching `F` faults. Panics unless `1 <= F <= 64`.
    pub fn new() -> Self {
        assert!(
            (1..=64).contains(&F),
            "ActiveReport: F = {F} faults, must be 1..=64 (the bits of w6)"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            faults: Default::default(),
            report_enable: Default::default(),
            fault_mask: Default::default(),
            reports: Default::default(),
            reports_sent: Default::default(),
            previous: Default::default(),
            pending: Default::default(),
            offered: Default::default(),
            report_bits: Default::default(),
            transaction_id: Default::default(),
            sent_pulse: Default::default(),
            rising: Default::default(),
            fresh: Default::default(),
            collected: Default::default(),
            taken: Default::default(),
            ticket_constant: Constant::new(Bits::from(RESPONSE_TYPE.set(
                RESPONSE_REPORT.set(0, 1),
                NmpType::FaultReport.code() as u128,
            ) as u64)),
            id_lsb: constant(RESPONSE_ID.lsb as u64),
            data_lsb: constant(RESPONSE_DATA.lsb as u64),
        }
    }
}

impl<const F: usize> Default for ActiveReport<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const F: usize> Logic for ActiveReport<F> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            previous,
            pending,
            offered,
            report_bits,
            transaction_id,
            sent_pulse
        );
        self.previous.d.next = self.faults.val();
        self.rising.next = 0.into();
        if self.report_enable.val() {
            self.rising.next = self.faults.val() & !self.previous.q.val() & !self.fault_mask.val();
        }
        self.taken.next = self.offered.q.val() & self.reports.ready.val() & !self.reset.val();
        self.fresh.next = self.rising.val();
        if self.offered.q.val() & !self.reports.ready.val() {
            self.fresh.next = self.rising.val() & !self.report_bits.q.val();
        }
        self.collected.next = self.pending.q.val() | self.fresh.val();
        self.pending.d.next = self.collected.val();
        if !self.offered.q.val() | self.taken.val() {
            self.offered.d.next = self.collected.val().any();
            self.report_bits.d.next = self.collected.val();
            self.pending.d.next = 0.into();
        }
        if self.taken.val() {
            self.transaction_id.d.next = self.transaction_id.q.val() + 1;
        }
        self.sent_pulse.d.next = self.taken.val();
        self.reports.valid.next = self.offered.q.val();
        self.reports.data.next = self.ticket_constant.val()
            | (bit_cast::<RESPONSE_TICKET_BITS, 16>(self.transaction_id.q.val())
                << self.id_lsb.val())
            | (bit_cast::<RESPONSE_TICKET_BITS, F>(self.report_bits.q.val())
                << self.data_lsb.val());
        if self.reset.val() {
            self.reports.valid.next = false;
            self.previous.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.offered.d.next = false;
            self.report_bits.d.next = 0.into();
            self.transaction_id.d.next = 0.into();
            self.sent_pulse.d.next = false;
        }
        self.reports_sent.next = self.sent_pulse.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_report_is_synthesizable() {
        let mut uut = ActiveReport::<8>::new();
        uut.connect_all();
        yosys_validate("active_report", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(expected = "ActiveReport: F = 65 faults, must be 1..=64")]
    fn active_report_rejects_too_many_faults() {
        let _ = ActiveReport::<65>::new();
    }
}
