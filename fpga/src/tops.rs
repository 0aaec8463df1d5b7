//! Board tops of a configuration: the demo on each board, with its pin constraints.
//!
//! | board | part ([`flow::Target`]) | clock | top |
//! |---|---|---|---|
//! | Alchitry Cu | iCE40-HX8K cb132 | 100 MHz, P7 | `cu_demo` |
//! | ULX3S 85F | LFE5U-85F CABGA381 | 25 MHz, G2 | `ulx3s_demo` |
//! | OrangeCrab 85F | LFE5U-85F CSFBGA285 | 48 MHz, A9 | `orangecrab_demo` |
use crate::cu_demo::CuDemo;
use crate::orangecrab_demo::OrangeCrabDemo;
use crate::ulx3s_demo::Ulx3sDemo;
use flow::{Ecp5Package, Target};
use hdl::fifo::{fifo_count_bits, fifo_ptr_bits};
use hdl::params::Config;
use hdl::tops::{emit, Emitted};
use rust_hdl::fpga::toolchains::ecp5::generate_lpf;
use rust_hdl::fpga::toolchains::icestorm::generate_pcf;

/// A board hpcnet has a top for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// Alchitry Cu (iCE40-HX8K).
    AlchitryCu,
    /// ULX3S 85F (ECP5-85k, CABGA381).
    Ulx3s,
    /// OrangeCrab 85F (ECP5-85k, CSFBGA285).
    OrangeCrab,
}

impl Board {
    /// Every board.
    pub const ALL: [Board; 3] = [Board::AlchitryCu, Board::Ulx3s, Board::OrangeCrab];

    /// The board's part.
    pub fn target(self) -> Target {
        match self {
            Board::AlchitryCu => Target::Ice40,
            Board::Ulx3s => Target::Ecp5(Ecp5Package::Cabga381),
            Board::OrangeCrab => Target::Ecp5(Ecp5Package::Csfbga285),
        }
    }

    /// The board of a part: the Alchitry Cu for the iCE40, the ULX3S or OrangeCrab by package.
    pub fn of(target: Target) -> Board {
        match target {
            Target::Ice40 => Board::AlchitryCu,
            Target::Ecp5(Ecp5Package::Cabga381) => Board::Ulx3s,
            Target::Ecp5(Ecp5Package::Csfbga285) => Board::OrangeCrab,
        }
    }

    /// The demo top's name.
    pub fn demo_top(self) -> &'static str {
        match self {
            Board::AlchitryCu => "cu_demo",
            Board::Ulx3s => "ulx3s_demo",
            Board::OrangeCrab => "orangecrab_demo",
        }
    }

    /// The clock the bitstream must meet, MHz: the configured `fpga.clock_mhz` on the Alchitry
    /// Cu, the board's oscillator on the ECP5 boards (they have no other clock without a PLL).
    pub fn clock_mhz(self, cfg: &Config) -> u32 {
        match self {
            Board::AlchitryCu => cfg.fpga.clock_mhz,
            Board::Ulx3s => crate::ulx3s_demo::CLOCK_MHZ,
            Board::OrangeCrab => crate::orangecrab_demo::CLOCK_MHZ,
        }
    }
}

/// A board top and its pin constraints.
pub struct BoardTop {
    /// The board.
    pub board: Board,
    /// The emitted top.
    pub top: Emitted,
    /// Pin constraints in the part's format (PCF or LPF).
    pub constraints: String,
}

/// The demo top of `board` for `cfg`.
pub fn demo(cfg: &Config, board: Board) -> Result<BoardTop, String> {
    hdl::with_log2!(cfg.fpga.demo_fifo_depth as usize, L, _LP1 => {
        const D: usize = 1 << L;
        const AW: usize = fifo_ptr_bits(D);
        const CW: usize = fifo_count_bits(D);
        let doc = "demo: LFSR frames with CRC-32 through a block-RAM FIFO, checked; an LED shows a CRC error";
        let (top, constraints) = match board {
            Board::AlchitryCu => {
                let mut uut = CuDemo::<D, AW, CW>::default();
                rust_hdl::prelude::Block::connect_all(&mut uut);
                let pcf = generate_pcf(&uut);
                (emit(uut, board.demo_top(), doc)?, pcf)
            }
            Board::Ulx3s => {
                let mut uut = Ulx3sDemo::<D, AW, CW>::default();
                rust_hdl::prelude::Block::connect_all(&mut uut);
                let lpf = generate_lpf(&uut);
                (emit(uut, board.demo_top(), doc)?, lpf)
            }
            Board::OrangeCrab => {
                let mut uut = OrangeCrabDemo::<D, AW, CW>::default();
                rust_hdl::prelude::Block::connect_all(&mut uut);
                let lpf = generate_lpf(&uut);
                (emit(uut, board.demo_top(), doc)?, lpf)
            }
        };
        Ok(BoardTop { board, top, constraints })
    })
}

/// Every board top of `cfg`.
pub fn tops(cfg: &Config) -> Result<Vec<Emitted>, String> {
    Board::ALL
        .iter()
        .map(|b| demo(cfg, *b).map(|t| t.top))
        .collect()
}
