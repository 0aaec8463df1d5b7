// Measurement wrapper (hpcnet, not third-party code): alexforencich verilog-axis `axis_arb_mux`
// with S_COUNT 4, DATA_WIDTH 64, no KEEP/ID/DEST/USER, LAST enabled, round robin with the
// lowest index first. Unused inputs are tied to zero. Needs axis_arb_mux.v, arbiter.v and
// priority_encoder.v alongside.
`default_nettype none
module ref_axis_arb_mux_s4_w64 (
    input  wire         clk,
    input  wire         rst,
    input  wire [255:0] s_axis_tdata,
    input  wire [3:0]   s_axis_tvalid,
    output wire [3:0]   s_axis_tready,
    input  wire [3:0]   s_axis_tlast,
    output wire [63:0]  m_axis_tdata,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast
);
    axis_arb_mux #(
        .S_COUNT(4),
        .DATA_WIDTH(64),
        .KEEP_ENABLE(0),
        .ID_ENABLE(0),
        .DEST_ENABLE(0),
        .USER_ENABLE(0),
        .LAST_ENABLE(1),
        .UPDATE_TID(0),
        .ARB_TYPE_ROUND_ROBIN(1),
        .ARB_LSB_HIGH_PRIORITY(1)
    ) mux (
        .clk(clk),
        .rst(rst),
        .s_axis_tdata(s_axis_tdata),
        .s_axis_tkeep(32'b0),
        .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready),
        .s_axis_tlast(s_axis_tlast),
        .s_axis_tid(32'b0),
        .s_axis_tdest(32'b0),
        .s_axis_tuser(4'b0),
        .m_axis_tdata(m_axis_tdata),
        .m_axis_tkeep(),
        .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready),
        .m_axis_tlast(m_axis_tlast),
        .m_axis_tid(),
        .m_axis_tdest(),
        .m_axis_tuser()
    );
endmodule
