//! `TagPool`: the NIC's central pool of host read tags (`nic.tags`, a power of two 4..=256),
//! shared by the descriptor reads, the data reads and the NAP-buffer-address reads, so that no
//! two reads in flight ever hold the same tag (the host interface's rule,
//! `docs/host-interface.md`).
//!
//! **Storage**: one `allocated` bit and one owner per tag, in flip-flops. A free tag is found by
//! a priority encoder over the `allocated` bits: the pool always offers the **lowest free tag**.
//! Nothing has to be initialised after reset (no free list to fill), so the pool offers tag 0
//! in the first cycle after reset.
//!
//! **Allocation** ([`TagAllocSource`], valid/ready): `valid` is high while a tag is free, `tag`
//! is the lowest free one; the requester takes it on an edge with `ready` and names itself in
//! `owner` (a requester id, [`OWNER_BITS`] bits). With every tag allocated `valid` is low: the
//! requesters wait (back pressure); a tag is never handed out twice. `valid` does not depend
//! on `ready` (no combinational path from `ready` to `valid` or `tag`).
//!
//! **Free** ([`TagFreeSink`], valid only: a free is never refused): a free of an allocated tag
//! makes it free from the next cycle on. A free of a tag that is not allocated (a double free,
//! or a tag at or above `nic.tags`) changes nothing and raises `bad_free` for that cycle (an
//! event pulse: the register file counts it). One allocation and one free may happen in the
//! same cycle, also of the same tag (a tag freed this cycle is not offered before the next).
//!
//! **Owner lookup** (combinational): `lookup_tag` in, `lookup_owner` (the owner given when it
//! was allocated) and `lookup_allocated` out, so a completion beat can be routed to its
//! requester by its tag in the cycle it arrives.
//!
//! **Second free port** (`free_second`, the same rules): the send engine's two requesters free
//! tags in the same cycle (the fetch as its descriptor completes, the reorder buffer as a
//! request's rows are read), so the pool takes two frees per cycle rather than queueing one.
//! Two frees of the same tag in one cycle are one free and one bad free.
//!
//! **Third free port** (`free_third`, the same rules): the receive engine's buffer manager
//! frees the tags of its ring reads. A free there of a tag freed by `free` or `free_second`
//! in the same cycle is a bad free.
//!
//! `in_use` counts the allocated tags (the pool is full again when it reads 0).
//!
//! **Reset** (synchronous, one cycle): every tag free, `in_use` 0; the next cycle offers tag 0.
//! Reads in flight at a reset are forgotten with it (the whole NIC is reset together).
//!
//! Parameters (elaboration): `tags`, a power of two 4..=256.
use crate::host::TAG_BITS;
use rust_hdl::prelude::*;

/// Bits of a requester id (descriptor fetch, data read, NAP-buffer read, one spare).
pub const OWNER_BITS: usize = 2;
/// Owner id of the descriptor fetch's reads.
pub const FETCH_OWNER: usize = 0;
/// Owner id of the send engine's data reads (`send::DataRead`).
pub const DATA_READ_OWNER: usize = 1;
/// Owner id of the NAP-buffer-address reads (the receive engine's buffer manager).
pub const NAP_BUFFER_OWNER: usize = 2;
/// Bits of the `in_use` count (0..=256).
pub const TAG_COUNT_BITS: usize = TAG_BITS + 1;

/// Tag allocation, at the pool: a free tag offered.
#[derive(LogicInterface, Default)]
#[join = "TagAllocSink"]
pub struct TagAllocSource {
    /// A tag is free and offered.
    pub valid: Signal<Out, bool>,
    /// The offered tag (the lowest free one).
    pub tag: Signal<Out, Bits<TAG_BITS>>,
    /// The requester takes the tag on this edge.
    pub ready: Signal<In, bool>,
    /// The requester's id, stored with the tag.
    pub owner: Signal<In, Bits<OWNER_BITS>>,
}

/// Tag allocation, at a requester.
#[derive(LogicInterface, Default)]
#[join = "TagAllocSource"]
pub struct TagAllocSink {
    /// A tag is offered.
    pub valid: Signal<In, bool>,
    /// The offered tag.
    pub tag: Signal<In, Bits<TAG_BITS>>,
    /// This requester takes it on this edge.
    pub ready: Signal<Out, bool>,
    /// This requester's id.
    pub owner: Signal<Out, Bits<OWNER_BITS>>,
}

/// Tag free, at a requester (valid only: the pool takes every free).
#[derive(LogicInterface, Default)]
#[join = "TagFreeSink"]
pub struct TagFreeSource {
    /// A tag is given back on this edge.
    pub valid: Signal<Out, bool>,
    /// The tag.
    pub tag: Signal<Out, Bits<TAG_BITS>>,
}

/// Tag free, at the pool.
#[derive(LogicInterface, Default)]
#[join = "TagFreeSource"]
pub struct TagFreeSink {
    /// A tag is given back on this edge.
    pub valid: Signal<In, bool>,
    /// The tag.
    pub tag: Signal<In, Bits<TAG_BITS>>,
}

/// The central tag pool; see the module documentation.
#[derive(LogicBlock)]
pub struct TagPool {
    /// Clock of the tag states.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every tag free.
    pub reset: Signal<In, bool>,
    /// Allocation: the lowest free tag offered.
    pub alloc: TagAllocSource,
    /// Frees.
    pub free: TagFreeSink,
    /// Frees of a second requester.
    pub free_second: TagFreeSink,
    /// Frees of a third requester.
    pub free_third: TagFreeSink,
    /// A free of a tag that is not allocated was ignored this cycle.
    pub bad_free: Signal<Out, bool>,
    /// The tag whose owner is looked up.
    pub lookup_tag: Signal<In, Bits<TAG_BITS>>,
    /// The owner `lookup_tag` was allocated to (0 when free).
    pub lookup_owner: Signal<Out, Bits<OWNER_BITS>>,
    /// `lookup_tag` is allocated.
    pub lookup_allocated: Signal<Out, bool>,
    /// Tags allocated now.
    pub in_use: Signal<Out, Bits<TAG_COUNT_BITS>>,
    /// Per tag: allocated.
    allocated: Vec<DFF<bool>>,
    /// Per tag: its requester.
    owners: Vec<DFF<Bits<OWNER_BITS>>>,
    count: DFF<Bits<TAG_COUNT_BITS>>,
    /// The freed tag is allocated (the free is good).
    good_free: Signal<Local, bool>,
    /// The second port's freed tag is allocated and not freed by the first port.
    good_second: Signal<Local, bool>,
    /// The third port's freed tag is allocated and not freed by the other two.
    good_third: Signal<Local, bool>,
    /// The offered tag is taken.
    taking: Signal<Local, bool>,
    /// Tag numbers.
    ids: Vec<Constant<Bits<TAG_BITS>>>,
    one: Constant<Bits<TAG_COUNT_BITS>>,
    /// Good frees on this edge (0 to 3).
    freeing: Signal<Local, Bits<TAG_COUNT_BITS>>,
}

impl TagPool {
    /// A pool of `tags` tags (a power of two, 4..=256).
    pub fn new(tags: usize) -> Self {
        assert!(
            tags.is_power_of_two() && (4..=1 << TAG_BITS).contains(&tags),
            "TagPool: tags (nic.tags) = {tags} must be a power of two in 4..=256"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            alloc: Default::default(),
            free: Default::default(),
            free_second: Default::default(),
            free_third: Default::default(),
            bad_free: Default::default(),
            lookup_tag: Default::default(),
            lookup_owner: Default::default(),
            lookup_allocated: Default::default(),
            in_use: Default::default(),
            allocated: (0..tags).map(|_| Default::default()).collect(),
            owners: (0..tags).map(|_| Default::default()).collect(),
            count: Default::default(),
            good_free: Default::default(),
            good_second: Default::default(),
            good_third: Default::default(),
            taking: Default::default(),
            ids: (0..tags).map(|i| Constant::new(i.to_bits())).collect(),
            one: Constant::new(1usize.to_bits()),
            freeing: Default::default(),
        }
    }
}

impl Logic for TagPool {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        for i in 0..self.allocated.len() {
            self.allocated[i].clock.next = self.clock.val();
            self.allocated[i].d.next = self.allocated[i].q.val();
            self.owners[i].clock.next = self.clock.val();
            self.owners[i].d.next = self.owners[i].q.val();
        }
        // The lowest free tag: the highest is looked at first, the lowest assigned last wins.
        self.alloc.valid.next = false;
        self.alloc.tag.next = 0.into();
        for n in self.allocated.len()..(self.allocated.len() + 1) {
            for j in 0..self.allocated.len() {
                if !self.allocated[n - 1 - j].q.val() {
                    self.alloc.valid.next = true;
                    self.alloc.tag.next = self.ids[n - 1 - j].val();
                }
            }
        }
        self.taking.next = self.alloc.valid.val() & self.alloc.ready.val();
        // The free and the lookup.
        self.good_free.next = false;
        self.good_second.next = false;
        self.good_third.next = false;
        self.lookup_owner.next = 0.into();
        self.lookup_allocated.next = false;
        for i in 0..self.allocated.len() {
            if self.free.tag.val().index() == i {
                self.good_free.next = self.allocated[i].q.val();
            }
            if self.free_second.tag.val().index() == i {
                self.good_second.next = self.allocated[i].q.val()
                    & !(self.free.valid.val()
                        & (self.free.tag.val() == self.free_second.tag.val()));
            }
            if self.free_third.tag.val().index() == i {
                self.good_third.next = self.allocated[i].q.val()
                    & !(self.free.valid.val() & (self.free.tag.val() == self.free_third.tag.val()))
                    & !(self.free_second.valid.val()
                        & (self.free_second.tag.val() == self.free_third.tag.val()));
            }
            if self.lookup_tag.val().index() == i {
                self.lookup_allocated.next = self.allocated[i].q.val();
                if self.allocated[i].q.val() {
                    self.lookup_owner.next = self.owners[i].q.val();
                }
            }
        }
        self.bad_free.next = ((self.free.valid.val() & !self.good_free.val())
            | (self.free_second.valid.val() & !self.good_second.val())
            | (self.free_third.valid.val() & !self.good_third.val()))
            & !self.reset.val();
        // The free first, then the allocation: the offered tag is a free one, so a tag freed
        // and allocated on the same edge are different tags.
        for i in 0..self.allocated.len() {
            if self.free.valid.val() & (self.free.tag.val().index() == i) {
                self.allocated[i].d.next = false;
            }
            if self.free_second.valid.val() & (self.free_second.tag.val().index() == i) {
                self.allocated[i].d.next = false;
            }
            if self.free_third.valid.val() & (self.free_third.tag.val().index() == i) {
                self.allocated[i].d.next = false;
            }
            if self.taking.val() & (self.alloc.tag.val().index() == i) {
                self.allocated[i].d.next = true;
                self.owners[i].d.next = self.alloc.owner.val();
            }
        }
        self.freeing.next =
            (bit_cast::<TAG_COUNT_BITS, 1>((self.free.valid.val() & self.good_free.val()).into()))
                + bit_cast::<TAG_COUNT_BITS, 1>(
                    (self.free_second.valid.val() & self.good_second.val()).into(),
                )
                + bit_cast::<TAG_COUNT_BITS, 1>(
                    (self.free_third.valid.val() & self.good_third.val()).into(),
                );
        self.count.d.next = self.count.q.val() - self.freeing.val();
        if self.taking.val() {
            self.count.d.next = self.count.q.val() + self.one.val() - self.freeing.val();
        }
        self.in_use.next = self.count.q.val();
        if self.reset.val() {
            for i in 0..self.allocated.len() {
                self.allocated[i].d.next = false;
            }
            self.count.d.next = 0.into();
        }
    }
}

#[test]
fn tag_pool_is_synthesizable() {
    for tags in [4, 32] {
        let mut uut = TagPool::new(tags);
        uut.connect_all();
        yosys_validate(&format!("tag_pool_{tags}"), &generate_verilog(&uut)).unwrap();
    }
}

#[test]
#[should_panic(expected = "tags (nic.tags) = 24")]
fn tag_pool_rejects_a_count_not_a_power_of_two() {
    let _ = TagPool::new(24);
}
