//! `nma_mesh`: the "NMA plus 8-port RS mesh" as one block for the FPGA cost figure
//! (`bench mgmt`): the router's 8-port relay-station mesh ([`RsMesh8`]) in front of the
//! management agent as the chips instantiate it ([`Nma`]: core, EEPROM on I2C, configuration
//! loader, the agent's register block), with the agent's `chip_request` port to the rest of
//! the router's registers left as top ports. What it leaves out, and `nrc_mgmt` has, is the
//! router's own register file (routing-table access, mesh counters, the ports' link reports:
//! 65 read-only 64-bit registers at 8 ports); `bench mgmt` measures both.
use hdl::formats::mgmt::{DestType, REGISTER_ADDRESS_BITS};
use hdl::formats::FLIT_BITS;
use hdl::mgmt::i2c_master::I2cPins;
use hdl::mgmt::nma::{Nma, NmaParams, NMA_CHIP_FAULTS};
use hdl::mgmt::nma_core::NMA_DATA_BITS;
use hdl::mgmt::relay_station::{RsBeatSink, RsBeatSource, RS_PORT_BITS};
use hdl::regmap::{RegRequestSource, RegResponseSink};
use nrc::rs_mesh::RsMesh8;
use rust_hdl::prelude::*;

/// Ports of the measured mesh.
pub const NMA_MESH_PORTS: usize = 8;

/// The agent behind an 8-port mesh; see the module documentation.
#[derive(LogicBlock)]
pub struct NmaMesh {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Per port: management packets arriving.
    pub inbound: [RsBeatSink<FLIT_BITS, RS_PORT_BITS>; NMA_MESH_PORTS],
    /// Per port: management packets leaving.
    pub outbound: [RsBeatSource<FLIT_BITS, RS_PORT_BITS>; NMA_MESH_PORTS],
    /// Register requests beyond the agent's block.
    pub chip_request: RegRequestSource<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>,
    /// Their responses.
    pub chip_response: RegResponseSink<NMA_DATA_BITS>,
    /// The chip's faults.
    pub chip_faults: Signal<In, Bits<NMA_CHIP_FAULTS>>,
    /// The configuration EEPROM's bus.
    pub i2c: I2cPins,
    /// Mesh drops per row (a counter's events in the router).
    pub mesh_dropped: Signal<Out, Bits<2>>,
    mesh: RsMesh8,
    agent: Nma<REGISTER_ADDRESS_BITS>,
}

impl NmaMesh {
    /// The block with the agent's `params`.
    pub fn new(params: NmaParams) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inbound: std::array::from_fn(|_| Default::default()),
            outbound: std::array::from_fn(|_| Default::default()),
            chip_request: Default::default(),
            chip_response: Default::default(),
            chip_faults: Default::default(),
            i2c: Default::default(),
            mesh_dropped: Default::default(),
            mesh: RsMesh8::new(),
            agent: Nma::new(DestType::Nrc, params),
        }
    }
}

impl Logic for NmaMesh {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, mesh, agent);
        self.mesh.reset.next = self.reset.val();
        self.agent.reset.next = self.reset.val();
        for p in 0..NMA_MESH_PORTS {
            RsBeatSink::<FLIT_BITS, RS_PORT_BITS>::link(
                &mut self.inbound[p],
                &mut self.mesh.inbound[p],
            );
            RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::link(
                &mut self.outbound[p],
                &mut self.mesh.outbound[p],
            );
        }
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
            &mut self.mesh.to_nma,
            &mut self.agent.from_port,
        );
        RsBeatSource::<FLIT_BITS, RS_PORT_BITS>::join(
            &mut self.agent.to_port,
            &mut self.mesh.from_nma,
        );
        RegRequestSource::<REGISTER_ADDRESS_BITS, NMA_DATA_BITS>::link(
            &mut self.chip_request,
            &mut self.agent.chip_request,
        );
        RegResponseSink::<NMA_DATA_BITS>::link(
            &mut self.chip_response,
            &mut self.agent.chip_response,
        );
        I2cPins::link(&mut self.i2c, &mut self.agent.i2c);
        self.agent.chip_faults.next = self.chip_faults.val();
        self.mesh_dropped.next = self.mesh.dropped.val();
    }
}

/// The block as an emitted top (`nma_mesh`) for the FPGA flow, with the default build's
/// agent parameters.
pub fn nma_mesh_top(cfg: &hdl::params::Config) -> Result<hdl::tops::Emitted, String> {
    hdl::tops::emit(
        NmaMesh::new(nrc::tops::nrc_mgmt_params(cfg)),
        "nma_mesh",
        "the management agent behind an 8-port relay-station mesh (the router's registers beyond the agent's block left as ports)",
    )
}

/// Prints the cost of `nma_mesh` and, for comparison, of `nrc_mgmt` (which adds the router's
/// register file) on both parts: LUTs, flip-flops, carries of the block synthesized alone, and
/// the median Fmax of 3 placer seeds on the flow's register-to-register harness (its input
/// bits fed straight from the harness's LFSR, its outputs folded), with the logic cells placed
/// (harness included). A design that does not place is reported with its synthesis figures and
/// the placer's cell count. `work` holds the flow's files.
pub fn report(work: &std::path::Path) -> anyhow::Result<()> {
    let cfg = hdl::params::Config::default();
    println!("\n## The management agent behind the 8-port relay-station mesh (goal: fits an iCE40-HX8K at 50 MHz or more)\n");
    println!("`nma_mesh`: the mesh and the agent as the chips instantiate it (`Nma`: core, loader, the agent's register block); `nrc_mgmt`: the same with the router's own register file (routing-table access, mesh counters, 8 ports' link reports). Block synthesized alone for LUTs/FFs; Fmax the median of seeds 1, 2, 3 on the harness.\n");
    println!("| part | top | LUTs | FFs | carries | Fmax (MHz) | seeds (MHz) | logic cells placed (harness incl.) |");
    println!("|---|---|---|---|---|---|---|---|");
    let plane = nrc::tops::tops(&cfg)
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .find(|t| t.name == "nrc_mgmt")
        .ok_or_else(|| anyhow::anyhow!("no nrc_mgmt top"))?;
    let tops = [nma_mesh_top(&cfg).map_err(anyhow::Error::msg)?, plane];
    for target in flow::Target::ALL {
        let options = flow::MeasureOptions {
            seeds: vec![1, 2, 3],
            synth: flow::SynthOptions::for_target(target),
            inputs: flow::harness::Inputs::Lfsr,
            outputs: flow::harness::Outputs::Folded,
            ..Default::default()
        };
        for top in &tops {
            let dir = work.join(target.name()).join(&top.name);
            std::fs::create_dir_all(&dir)?;
            let file = dir.join(format!("{}.v", top.name));
            std::fs::write(&file, &top.verilog)?;
            match flow::measure_block_with(&[&file], &top.name, &dir, &options) {
                Ok(c) => println!(
                    "| {} | {} | {} | {} | {} | {:.1} | {} | {} of {} |",
                    target.part(),
                    top.name,
                    c.luts,
                    c.ffs,
                    c.carries,
                    c.fmax_mhz,
                    c.seeds_text(),
                    c.placed_lcs,
                    c.placements[0].lcs.available
                ),
                Err(_) => {
                    let block = flow::synth_with(
                        &[&file],
                        &top.name,
                        &dir.join("alone"),
                        &flow::SynthOptions::for_target(target),
                    )?;
                    // The placer's own count of the cells it could not fit.
                    let cells = std::fs::read_to_string(dir.join("harness/seed1/nextpnr.log"))
                        .unwrap_or_default()
                        .lines()
                        .find(|l| l.contains("_LC:") || l.contains("TRELLIS_COMB:"))
                        .map(|l| l.trim().to_string())
                        .unwrap_or_else(|| "placement failed".into());
                    println!(
                        "| {} | {} | {} | {} | {} | does not place | - | {cells} |",
                        target.part(),
                        top.name,
                        block.luts,
                        block.ffs,
                        block.carries
                    );
                }
            }
        }
    }
    Ok(())
}
