"""``diplomat daide check|encode|decode``."""

import io
import sys

import pytest

from diplomat.cli.main import main

NME_FRAME = "02 00 00 12 48 0C 40 00 4B 42 4B 6F 4B 74 40 01 40 00 4B 31 40 01"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["daide", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_check_prints_canonical_form_and_level(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check", "snd(fra)(prp(xdo((fra amy par) mto bur)))")
    assert status == 0
    assert out.splitlines() == [
        "SND ( FRA ) ( PRP ( XDO ( ( FRA AMY PAR ) MTO BUR ) ) )",
        "press level 20",
    ]


def test_check_prints_huh_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "check", "NME ('x')")
    assert status == 1
    assert out.strip() == "HUH ( NME ( 'x' ) ERR )"
    assert "syntax error" in err


def test_check_against_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check", "--level", "10", "SND (FRA) (PRP (DMZ (FRA) (BUR)))")
    assert status == 1
    assert out.splitlines()[-1] == "HUH ( SND ( FRA ) ( PRP ( ERR DMZ ( FRA ) ( BUR ) ) ) )"
    status, _, _ = run(capsys, "check", "--level", "20", "SND (FRA) (PRP (DMZ (FRA) (BUR)))")
    assert status == 0


def test_check_typed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check", "--typed", "NOT (GOF)")
    assert status == 0
    assert out.splitlines()[-1] == "Not(inner=Gof())"


def test_encode(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "encode", "NME ('Bot') ('1')")
    assert (status, out.strip()) == (0, NME_FRAME)
    status, out, _ = run(capsys, "encode", "--payload", "NOT ( GOF )")
    assert (status, out.strip()) == (0, "48 0D 40 00 48 03 40 01")


def test_encode_ccl_nar_choice(capsys: pytest.CaptureFixture[str]) -> None:
    _, default, _ = run(capsys, "encode", "--payload", "SND (FRA) (CCL (PRP (DRW)))")
    _, parlance, _ = run(
        capsys, "encode", "--payload", "--ccl-nar", "parlance", "SND (FRA) (CCL (PRP (DRW)))"
    )
    assert "4A 26" in default and "4A 25" in parlance


def test_encode_failures(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "encode", "GOF GOF")
    assert status == 1 and out.strip() == "HUH ( GOF ERR GOF )"
    status, _, err = run(capsys, "encode", "SND (FRA) (PRP (ROF))")
    assert status == 1 and "text form only" in err


def test_decode_hex(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "decode", NME_FRAME)
    assert (status, out.strip()) == (0, "NME ( 'Bot' ) ( '1' )")
    status, out, _ = run(capsys, "decode", "--payload", "480D40004803 4001")
    assert (status, out.strip()) == (0, "NOT ( GOF )")


def test_decode_captured_stream_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = bytes.fromhex(
        "00 00 00 04 00 01 DA 10"  # IM
        "01 0E 00 00"  # empty RM, garbage pad
        + NME_FRAME
        + "02 00 00 04 48 03 5A 01"  # a reserved token
        "04 00 00 02 00 0E"  # EM
        "03 00 00 00"  # FM
        "02 00 00 08 48"  # cut off
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stream)))
    status, out, err = run(capsys, "decode", "-")
    assert status == 1
    assert out.splitlines() == [
        "[IM version 1 magic 0xDA10]",
        "[RM standard map]",
        "NME ( 'Bot' ) ( '1' )",
        "0x4803 0x5A01",
        "[EM 0x0E invalid token in DM]",
        "[FM]",
    ]
    assert "incomplete frame" in err


def test_decode_hex_on_stdin_and_variant_rm(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "01 00 00 06 41 00 4F 4E 45 00\n02 00 00 08 48 00 40 00 41 00 40 01\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    status, out, _ = run(capsys, "decode", "-")
    assert status == 0
    assert out.splitlines() == ["[RM 1 powers and provinces]", "CCD ( ONE )"]


def test_decode_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "decode", "0g")
    assert status == 2 and "hex" in err
