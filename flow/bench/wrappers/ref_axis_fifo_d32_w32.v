// Measurement wrapper (hpcnet, not third-party code): alexforencich verilog-axis `axis_fifo`
// with DEPTH 32, DATA_WIDTH 32 and every optional sideband off (no KEEP/LAST/ID/DEST/USER,
// FRAME_FIFO 0, PAUSE_ENABLE 0), so its ports are a plain valid/ready/data stream like an
// hpcnet FIFO. Unused inputs are tied to zero; status outputs are left open (they are not part
// of the comparison and synthesis removes their logic). Needs axis_fifo.v alongside.
`default_nettype none
module ref_axis_fifo_d32_w32 (
    input  wire        clk,
    input  wire        rst,
    input  wire [31:0] s_axis_tdata,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    output wire [31:0] m_axis_tdata,
    output wire        m_axis_tvalid,
    input  wire        m_axis_tready
);
    axis_fifo #(
        .DEPTH(32),
        .DATA_WIDTH(32),
        .KEEP_ENABLE(0),
        .LAST_ENABLE(0),
        .ID_ENABLE(0),
        .DEST_ENABLE(0),
        .USER_ENABLE(0),
        .FRAME_FIFO(0)
    ) fifo (
        .clk(clk),
        .rst(rst),
        .s_axis_tdata(s_axis_tdata),
        .s_axis_tkeep(4'b0),
        .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready),
        .s_axis_tlast(1'b0),
        .s_axis_tid(8'b0),
        .s_axis_tdest(8'b0),
        .s_axis_tuser(1'b0),
        .m_axis_tdata(m_axis_tdata),
        .m_axis_tkeep(),
        .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready),
        .m_axis_tlast(),
        .m_axis_tid(),
        .m_axis_tdest(),
        .m_axis_tuser(),
        .pause_req(1'b0),
        .pause_ack(),
        .status_depth(),
        .status_depth_commit(),
        .status_overflow(),
        .status_bad_frame(),
        .status_good_frame()
    );
endmodule
