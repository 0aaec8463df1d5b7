//! Board tops of a configuration: the Alchitry Cu demo, with its pin constraints.
use crate::cu_demo::CuDemo;
use hdl::fifo::{fifo_count_bits, fifo_ptr_bits};
use hdl::params::Config;
use hdl::tops::{emit, Emitted};
use rust_hdl::fpga::toolchains::icestorm::generate_pcf;

/// Name of the demo top.
pub const DEMO_TOP: &str = "cu_demo";

/// The demo top of `cfg` and its PCF (pin constraints).
pub fn demo(cfg: &Config) -> Result<(Emitted, String), String> {
    hdl::with_log2!(cfg.fpga.demo_fifo_depth as usize, L, _LP1 => {
        const D: usize = 1 << L;
        let mut uut = CuDemo::<D, { fifo_ptr_bits(D) }, { fifo_count_bits(D) }>::default();
        rust_hdl::prelude::Block::connect_all(&mut uut);
        let pcf = generate_pcf(&uut);
        let e = emit(uut, DEMO_TOP, "Alchitry Cu demo: LFSR frames with CRC-32 through a block-RAM FIFO, checked; LED 7 = CRC error")?;
        Ok((e, pcf))
    })
}

/// Every board top of `cfg`.
pub fn tops(cfg: &Config) -> Result<Vec<Emitted>, String> {
    Ok(vec![demo(cfg)?.0])
}
