//! Starving marks of one output port, the [`SwitchAllocator`](super::SwitchAllocator)'s
//! state per output: bit `w` set means heads for VC `w` need `max_len` credits (see the
//! allocator's module documentation for why).
//!
//! On each edge a mark is set by a refusal in a cycle where another head takes the VC
//! (`refusals` bit `w`: a head found VC `w` free but too few credits for its own `len`;
//! `head_sent` on `vc` = `w`: a shorter head took it, the case that can starve the long one),
//! and cleared when a head takes the VC without a refusal. A refusal while nobody takes the VC
//! does not mark it: nobody spends its credits then, so they build up until the refused head
//! fits. Marking on every refusal instead made every head wait for `max_len` credits (the
//! whole credit round trip) after almost every packet when several inputs queue for one
//! output VC (`bench router`, 6 VCs, uniform traffic with Dest-Mod VCs: saturation 0.812
//! with marks on every refusal, 0.832 with this rule).
//! Reset (synchronous) clears every mark. `marks` shows the register.
use rust_hdl::prelude::*;

/// The starving marks of one output port; see the module documentation.
#[derive(LogicBlock)]
pub struct StarvingMarks<const VCS: usize, const VCB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every mark cleared.
    pub reset: Signal<In, bool>,
    /// Bit `w`: a head for VC `w` was refused in this cycle.
    pub refusals: Signal<In, Bits<VCS>>,
    /// A head leaves on `vc` in this cycle.
    pub head_sent: Signal<In, bool>,
    /// The VC of that head.
    pub vc: Signal<In, Bits<VCB>>,
    /// Bit `w`: VC `w` is marked starving.
    pub marks: Signal<Out, Bits<VCS>>,
    marked: DFF<Bits<VCS>>,
    /// The marks that survive this cycle's head.
    kept: Signal<Local, Bits<VCS>>,
    /// The VC a head takes in this cycle, one-hot (zero: none).
    taken: Signal<Local, Bits<VCS>>,
    one_hot: Constant<Bits<VCS>>,
}

impl<const VCS: usize, const VCB: usize> Default for StarvingMarks<VCS, VCB> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            refusals: Default::default(),
            head_sent: Default::default(),
            vc: Default::default(),
            marks: Default::default(),
            marked: Default::default(),
            kept: Default::default(),
            taken: Default::default(),
            one_hot: Constant::new(1u64.into()),
        }
    }
}

impl<const VCS: usize, const VCB: usize> Logic for StarvingMarks<VCS, VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, marked);
        self.marks.next = self.marked.q.val();
        self.taken.next = 0.into();
        if self.head_sent.val() {
            self.taken.next = self.one_hot.val() << self.vc.val();
        }
        self.kept.next = self.marked.q.val() & !self.taken.val();
        self.marked.d.next = self.kept.val() | (self.refusals.val() & self.taken.val());
        if self.reset.val() {
            self.marked.d.next = 0.into();
        }
    }
}

#[test]
fn starving_marks_are_synthesizable() {
    let mut uut = StarvingMarks::<3, 2>::default();
    uut.connect_all();
    yosys_validate("starving_marks", &generate_verilog(&uut)).unwrap();
}
