"""`sparsegp demo` end to end on the shipped data."""

from sparsegp.cli import main


def test_demo_prints_table_and_writes_png(tmp_path, capsys):
    out = tmp_path / "demo.png"
    main(["demo", "--out", str(out), "--n-train", "120"])
    printed = capsys.readouterr().out
    for name in (
        "EPGPClassifier",
        "IVMClassifier (d=100)",
        "FITCGPClassifier (M=20)",
        "SparseOnlineGPClassifier (d=80)",
    ):
        assert f"| banana | {name} | 1 |" in printed
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
