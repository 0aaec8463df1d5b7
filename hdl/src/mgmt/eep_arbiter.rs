//! EEPROM arbiter: two requesters share one [`EepAccess`](super::eep_access::EepAccess): the
//! configuration loader (input `first`, priority) and the agent's
//! [`EepBridge`](super::eep_bridge::EepBridge) (input `second`). Whole commands: a command is
//! passed on, then its result is routed back to the requester that issued it, and only after
//! that result is taken is the next command passed on (the EEPROM unit serves one command at
//! a time anyway: its `command.ready` is high only while idle).
//!
//! Choice: when no command is outstanding, `first` if it offers one, else `second`: the loader
//! runs after reset, before the chip answers management traffic, and its reads are few; a
//! requester that keeps offering could starve the other, which the loader does not. The choice
//! is held while the offered command waits (`valid && !ready`), so the command on `command`
//! stays the same until taken (the stream rules), even if `first` starts offering meanwhile.
//!
//! Handshake: `command.valid` and its fields are multiplexed from the chosen sink
//! (combinational, no ready-to-valid path); the chosen sink's `ready` is `command.ready`.
//! `result` is shown only to its owner (`valid` low to the other); `result.ready` is the
//! owner's `ready`. No storage but the owner and the lock: zero cycles of latency.
//!
//! Ports: `clock`, `reset` (synchronous, shared with the EEPROM unit, which drops the command in
//! progress: the arbiter forgets its owner and lock), `first_command`/`first_result`,
//! `second_command`/`second_result`, `command`/`result` (to the EEPROM unit).
use super::eep_access::{EepCommandSink, EepCommandSource, EepResultSink, EepResultSource};
use rust_hdl::prelude::*;

/// The EEPROM arbiter; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct EepArbiter {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Commands of the priority requester (the configuration loader).
    pub first_command: EepCommandSink,
    /// Results of `first_command`'s commands.
    pub first_result: EepResultSource,
    /// Commands of the other requester (the agent's EEPROM bridge).
    pub second_command: EepCommandSink,
    /// Results of `second_command`'s commands.
    pub second_result: EepResultSource,
    /// Commands to the EEPROM unit.
    pub command: EepCommandSource,
    /// The EEPROM unit's results.
    pub result: EepResultSink,
    /// A command was passed on and its result is not yet taken.
    busy: DFF<bool>,
    /// The outstanding command is `second`'s.
    owner_second: DFF<bool>,
    /// The offered command waits: the choice is held.
    locked: DFF<bool>,
    held_second: DFF<bool>,
    /// `second` is chosen this cycle.
    choose_second: Signal<Local, bool>,
}

impl Logic for EepArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, owner_second, locked, held_second);
        self.choose_second.next = !self.first_command.valid.val();
        if self.locked.q.val() {
            self.choose_second.next = self.held_second.q.val();
        }
        self.command.valid.next = self.first_command.valid.val();
        self.command.write.next = self.first_command.write.val();
        self.command.address.next = self.first_command.address.val();
        self.command.count.next = self.first_command.count.val();
        self.command.data.next = self.first_command.data.val();
        if self.choose_second.val() {
            self.command.valid.next = self.second_command.valid.val();
            self.command.write.next = self.second_command.write.val();
            self.command.address.next = self.second_command.address.val();
            self.command.count.next = self.second_command.count.val();
            self.command.data.next = self.second_command.data.val();
        }
        if self.busy.q.val() | self.reset.val() {
            self.command.valid.next = false;
        }
        self.first_command.ready.next = self.command.ready.val()
            & !self.busy.q.val()
            & !self.choose_second.val()
            & !self.reset.val();
        self.second_command.ready.next = self.command.ready.val()
            & !self.busy.q.val()
            & self.choose_second.val()
            & !self.reset.val();
        self.locked.d.next = self.command.valid.val() & !self.command.ready.val();
        self.held_second.d.next = self.choose_second.val();
        if self.command.valid.val() & self.command.ready.val() {
            self.busy.d.next = true;
            self.owner_second.d.next = self.choose_second.val();
        }
        // Results back to the owner.
        self.first_result.data.next = self.result.data.val();
        self.first_result.error.next = self.result.error.val();
        self.second_result.data.next = self.result.data.val();
        self.second_result.error.next = self.result.error.val();
        self.first_result.valid.next =
            self.result.valid.val() & self.busy.q.val() & !self.owner_second.q.val();
        self.second_result.valid.next =
            self.result.valid.val() & self.busy.q.val() & self.owner_second.q.val();
        self.result.ready.next = self.busy.q.val() & self.first_result.ready.val();
        if self.owner_second.q.val() {
            self.result.ready.next = self.busy.q.val() & self.second_result.ready.val();
        }
        if self.result.valid.val() & self.result.ready.val() {
            self.busy.d.next = false;
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.locked.d.next = false;
            self.first_result.valid.next = false;
            self.second_result.valid.next = false;
            self.result.ready.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eep_arbiter_is_synthesizable() {
        let mut uut = EepArbiter::default();
        uut.connect_all();
        yosys_validate("eep_arbiter", &generate_verilog(&uut)).unwrap();
    }
}
