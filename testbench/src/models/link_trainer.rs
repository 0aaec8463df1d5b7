//! Cycle-exact reference model of `hdl::llp::train::LinkTrainer`, written from its
//! specification (hpcnet issue 10, item 1), not from the hardware: TS words are built and
//! checked with `hdl::llp::train::ts_word`'s Rust functions (`ts_encode`, `ts_decode`, the
//! software CRC), lanes and counters as plain integers.
//!
//! Use: each cycle, [`LinkTrainerModel::outputs`] gives every output for this cycle's inputs
//! (before the rising edge), then [`LinkTrainerModel::clock`] applies the edge;
//! [`LinkTrainerModel::step`] does both. The same model serves as the far end in the benches.
use hdl::llp::lane_channel::MAX_LANES;
use hdl::llp::train::state::{STATE_READY, STATE_SEEK, STATE_UP};
use hdl::llp::train::ts_word::*;

/// One cycle of a lane channel (4 lanes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lanes {
    /// Bit `n`: lane `n` carries a transfer.
    pub valid: u8,
    /// Bit `n`: lane `n`'s transfer starts an LTP.
    pub start: u8,
    /// Lane `n`'s transfer.
    pub data: [u32; MAX_LANES],
}

impl Lanes {
    /// The 128-bit `data` bus.
    pub fn data_bus(&self) -> u128 {
        (0..MAX_LANES).fold(0u128, |acc, n| acc | (self.data[n] as u128) << (32 * n))
    }
    /// From the bus form.
    pub fn from_bus(valid: u8, start: u8, data: u128) -> Self {
        Self {
            valid: valid & 0xF,
            start: start & 0xF,
            data: std::array::from_fn(|n| (data >> (32 * n)) as u32),
        }
    }
}

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrainerInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// The striper's beats.
    pub from_striper: Lanes,
    /// From the wire.
    pub lanes_in: Lanes,
    /// Our identity.
    pub chip_type: u8,
    /// Our identity.
    pub chip_id: u16,
    /// Our identity.
    pub port_number: u8,
    /// Pulse: go down.
    pub link_fail: bool,
    /// Gate for READY -> UP.
    pub quiet: bool,
    /// The wire does not take this cycle's word (the trainer's `tx_slot` low): the word
    /// index and the count of ready words told stay.
    pub tx_wait: bool,
}

/// Every output of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrainerOutputs {
    /// To the wire.
    pub lanes_out: Lanes,
    /// To the deframer.
    pub to_deframer: Lanes,
    /// In UP.
    pub up: bool,
    /// First cycle of UP.
    pub went_up: bool,
    /// The far end's fresh bit from the last heard ready word.
    pub far_fresh: bool,
    /// The far end's frozen mask.
    pub tx_mask: u8,
    /// Our frozen mask.
    pub rx_mask: u8,
    /// Live good lanes.
    pub rx_good: u8,
    /// 0 SEEK, 1 READY, 2 UP.
    pub state: u8,
    /// Latched identity.
    pub far_chip_type: u8,
    /// Latched identity.
    pub far_chip_id: u16,
    /// Latched identity.
    pub far_port: u8,
    /// All four identity words latched since the last SEEK entry.
    pub far_known: bool,
    /// UP -> SEEK transitions.
    pub trainings: u16,
    /// ... because the far end started training.
    pub far_downs: u16,
}

/// The model's state (all zero at power-up and after reset).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkTrainerModel {
    train_timeout: u16,
    /// Cycles per XFR on the wire (1: 32-bit lanes, 2: 16-bit lanes).
    xfr_cycles: u8,
    /// Per lane, at 2 cycles per XFR: the last cycle had no word.
    missed: [bool; MAX_LANES],
    phase: u8,
    up: bool,
    went_up: bool,
    been_up: bool,
    index: u8,
    heard: u8,
    told: u8,
    timer: u16,
    far_mask_ready: u8,
    far_fresh: bool,
    rx_frozen: u8,
    trainings: u16,
    far_downs: u16,
    run: [u8; MAX_LANES],
    seek_run: [u8; MAX_LANES],
    last_index: [u8; MAX_LANES],
    far_mask: u8,
    far_chip_type: u8,
    far_chip_id: u16,
    far_port: u8,
    known: u8,
}

/// What the receive side makes of one cycle's `lanes_in`.
struct Received {
    good: [bool; MAX_LANES],
    fields: [Option<TsFields>; MAX_LANES],
    reference: Option<TsFields>,
}

impl LinkTrainerModel {
    /// A trainer with READY timeout `train_timeout` (>= 1), at power-up.
    pub fn new(train_timeout: u16) -> Self {
        Self::with_xfr_cycles(train_timeout, 1)
    }

    /// A trainer on a wire that takes `xfr_cycles` (1 or 2) cycles per XFR: at 2 a lane's
    /// counts hold through one cycle without a word.
    pub fn with_xfr_cycles(train_timeout: u16, xfr_cycles: u8) -> Self {
        assert!(train_timeout >= 1, "train_timeout must be at least 1");
        assert!(
            xfr_cycles == 1 || xfr_cycles == 2,
            "xfr_cycles must be 1 or 2"
        );
        Self {
            train_timeout,
            xfr_cycles,
            ..Default::default()
        }
    }

    /// Lanes with `run >= GOOD_RUN`.
    pub fn rx_good(&self) -> u8 {
        (0..MAX_LANES).fold(0, |m, n| {
            m | (((self.run[n] as u32 >= GOOD_RUN) as u8) << n)
        })
    }

    fn receive(&self, lanes: &Lanes) -> Received {
        let mut good = [false; MAX_LANES];
        let mut fields = [None; MAX_LANES];
        for n in 0..MAX_LANES {
            let f = ts_decode(lanes.data[n]);
            fields[n] = f;
            good[n] = (lanes.valid >> n) & 1 == 1
                && (lanes.start >> n) & 1 == (self.xfr_cycles == 1) as u8
                && f.is_some_and(|f| {
                    f.lane as usize == n
                        && (self.run[n] == 0 || f.index == (self.last_index[n] + 1) % 4)
                });
        }
        let reference = (0..MAX_LANES)
            .find(|&n| good[n] && self.run[n] as u32 + 1 >= REFERENCE_RUN)
            .and_then(|n| fields[n]);
        Received {
            good,
            fields,
            reference,
        }
    }

    /// Every output for this cycle's inputs `i`.
    pub fn outputs(&self, i: &TrainerInputs) -> TrainerOutputs {
        let ready = self.phase == STATE_READY as u8;
        let mask = if ready {
            self.rx_frozen
        } else {
            self.rx_good()
        };
        let ts = Lanes {
            valid: 0xF,
            // On 16-bit lanes TS words carry `start` low: the gearbox frames by it.
            start: if self.xfr_cycles == 1 { 0xF } else { 0 },
            data: std::array::from_fn(|n| {
                ts_encode(&TsFields {
                    index: self.index,
                    lane: n as u8,
                    fresh: !self.been_up,
                    ready,
                    mask,
                    payload: ts_payload(self.index, i.chip_type, i.chip_id, i.port_number),
                })
            }),
        };
        TrainerOutputs {
            lanes_out: if self.up { i.from_striper } else { ts },
            to_deframer: if self.up {
                i.lanes_in
            } else {
                Lanes {
                    valid: 0,
                    start: 0,
                    data: i.lanes_in.data,
                }
            },
            up: self.up,
            went_up: self.went_up,
            far_fresh: self.far_fresh,
            tx_mask: self.far_mask_ready,
            rx_mask: self.rx_frozen,
            rx_good: self.rx_good(),
            state: self.phase,
            far_chip_type: self.far_chip_type,
            far_chip_id: self.far_chip_id,
            far_port: self.far_port,
            far_known: self.known == 0xF,
            trainings: self.trainings,
            far_downs: self.far_downs,
        }
    }

    /// The rising edge with inputs `i`.
    pub fn clock(&mut self, i: &TrainerInputs) {
        if i.reset {
            *self = Self::with_xfr_cycles(self.train_timeout, self.xfr_cycles);
            return;
        }
        let rx = self.receive(&i.lanes_in);
        let rx_good = self.rx_good();
        let far_seeking = self.seek_run.iter().any(|&s| s as u32 >= FAR_SEEK_RUN);
        let old = self.clone();
        for n in 0..MAX_LANES {
            let valid = (i.lanes_in.valid >> n) & 1 == 1;
            let tolerant = self.xfr_cycles == 2;
            self.missed[n] = tolerant && !valid && !old.missed[n];
            if !(valid || !tolerant || old.missed[n]) {
                // The first empty cycle after a word on a 16-bit lane changes nothing.
                continue;
            }
            self.last_index[n] = ((i.lanes_in.data[n] >> TS_INDEX_LSB) & 3) as u8;
            let ready_word = rx.fields[n].is_some_and(|f| f.ready);
            self.run[n] = if rx.good[n] {
                (old.run[n] + 1).min(RUN_MAX as u8)
            } else {
                0
            };
            self.seek_run[n] = if rx.good[n] && !ready_word {
                (old.seek_run[n] + 1).min(SEEK_RUN_MAX as u8)
            } else {
                0
            };
        }
        if let Some(r) = rx.reference {
            self.far_mask = r.mask;
            self.known |= 1 << r.index;
            match r.index {
                0 => self.far_chip_type = r.payload,
                1 => self.far_chip_id = (self.far_chip_id & 0x00FF) | (r.payload as u16) << 8,
                2 => self.far_chip_id = (self.far_chip_id & 0xFF00) | r.payload as u16,
                _ => self.far_port = r.payload,
            }
        }
        if !i.tx_wait {
            self.index = (old.index + 1) % 4;
        }
        let (in_seek, in_ready, in_up) = (
            old.phase == STATE_SEEK as u8,
            old.phase == STATE_READY as u8,
            old.phase == STATE_UP as u8,
        );
        if in_seek && rx_good != 0 && old.far_mask != 0 {
            self.phase = STATE_READY as u8;
            self.rx_frozen = rx_good;
            self.timer = 0;
        }
        if let Some(r) = rx.reference.filter(|r| in_ready && r.ready) {
            self.far_mask_ready = r.mask;
            self.far_fresh = r.fresh;
            self.heard = if old.heard > 0 && r.mask != old.far_mask_ready {
                1
            } else {
                (old.heard + 1).min(HEARD_NEEDED as u8)
            };
        }
        if in_ready && !i.tx_wait && old.heard > 0 {
            self.told = (old.told + 1).min(TOLD_NEEDED as u8);
        }
        if in_ready {
            self.timer = old.timer.wrapping_add(1);
        }
        let go_up = in_ready
            && old.heard as u32 >= HEARD_NEEDED
            && old.told as u32 >= TOLD_NEEDED
            && i.quiet;
        let give_up = in_ready && !go_up && old.timer == self.train_timeout - 1;
        self.went_up = go_up;
        if go_up {
            self.phase = STATE_UP as u8;
            self.up = true;
        }
        if in_up {
            self.been_up = true;
        }
        let go_down = in_up && (i.link_fail || far_seeking);
        if go_down {
            self.up = false;
            self.trainings = old.trainings.saturating_add(1);
            if far_seeking {
                self.far_downs = old.far_downs.saturating_add(1);
            }
        }
        if give_up || go_down {
            self.phase = STATE_SEEK as u8;
            self.heard = 0;
            self.told = 0;
            self.known = 0;
        }
    }

    /// [`Self::outputs`] then [`Self::clock`].
    pub fn step(&mut self, i: &TrainerInputs) -> TrainerOutputs {
        let o = self.outputs(i);
        self.clock(i);
        o
    }
}
