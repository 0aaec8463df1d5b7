//! Throwaway (not committed): writes the nma_mesh and nrc_mgmt tops' Verilog into a directory.
fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("dir"));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = hdl::params::Config::default();
    let top = testbench::nma_mesh_top::nma_mesh_top(&cfg).unwrap();
    std::fs::write(dir.join("nma_mesh.v"), &top.verilog).unwrap();
    let plane = nrc::tops::tops(&cfg)
        .unwrap()
        .into_iter()
        .find(|t| t.name == "nrc_mgmt")
        .unwrap();
    std::fs::write(dir.join("nrc_mgmt.v"), &plane.verilog).unwrap();
}
