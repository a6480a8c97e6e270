"""Every message form of the spec parses to a typed value and round-trips in both wire forms."""

import pytest

from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Note,
    Outcome,
    Remove,
    Result,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import Dislodged, Phase, Unit
from diplomat.protocol import messages
from diplomat.protocol.atoms import atoms_from_payload
from diplomat.protocol.codec import (
    codec_for,
    parse_payload,
    parse_text,
    render_payload,
    render_text,
)
from diplomat.protocol.tokens import STANDARD

C = codec_for(STANDARD)

# Canonical text of every message form (spec §3 and §4), grouped as the spec lists them.
LEVEL_0 = [
    "NME ( 'Albert' ) ( 'v6.0.1' )",
    "OBS",
    "IAM ( TUR ) ( 132 )",
    "MAP",
    "MAP ( 'standard' )",
    "MDF",
    "YES ( NME ( 'Albert' ) ( 'v6.0.1' ) )",
    "REJ ( NME ( 'Albert' ) ( 'v6.0.1' ) )",
    "YES ( OBS )",
    "REJ ( OBS )",
    "YES ( IAM ( TUR ) ( 132 ) )",
    "REJ ( IAM ( TUR ) ( 132 ) )",
    "YES ( MAP ( 'standard' ) )",
    "REJ ( MAP ( 'standard' ) )",
    "HLO",
    "REJ ( HLO )",
    "HLO ( ENG ) ( 1234 ) ( ( LVL 0 ) )",
    "HLO ( UNO ) ( 0 ) ( ( LVL 20 ) )",
    "HLO ( ENG ) ( 5686 ) ( ( LVL 0 ) ( MTL 300 ) ( RTL 300 ) ( BTL 300 ) )",
    "HLO ( FRA ) ( 8191 ) ( ( LVL 10 ) ( MTL 1200 ) ( RTL 60 ) ( BTL 60 ) ( DSD ) ( AOA ) "
    "( PDA ) ( NPR ) ( NPB ) ( PTL 120 ) )",
    "SCO",
    "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( GER ) ( UNO BEL BUL DEN )",
    "NOW",
    "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( RUS FLT ( STP SCS ) ) ( ENG FLT LON )",
    "NOW ( SUM 1902 ) ( TUR FLT CON MRT ( BLA SMY ( BUL ECS ) ( BUL SCS ) ) ) ( RUS AMY BUL )",
    "NOW ( AUT 1903 ) ( GER AMY MUN MRT ( ) )",
    "NOW ( WIN 1901 )",
    "HST",
    "HST ( FAL 1901 )",
    "REJ ( HST ( FAL 1901 ) )",
    "ORD",
    "REJ ( ORD )",
    "SUB ( ( ENG AMY LVP ) HLD ) ( ( ENG FLT LON ) MTO NTH ) "
    "( ( ENG FLT EDI ) SUP ( ENG FLT LON ) MTO NTH )",
    "SUB ( ( ENG FLT BAR ) MTO ( STP NCS ) ) ( ( ENG FLT NWY ) SUP ( ENG FLT BAR ) MTO STP )",
    "SUB ( ( ITA AMY TUN ) CTO SYR VIA ( ION EAS ) ) ( ( ITA FLT ION ) CVY ( ITA AMY TUN ) "
    "CTO SYR ) ( ( ITA FLT EAS ) CVY ( ITA AMY TUN ) CTO SYR )",
    "SUB ( SPR 1901 ) ( ( FRA AMY PAR ) SUP ( FRA AMY MAR ) )",
    "SUB ( ( RUS FLT ( STP SCS ) ) RTO ( BUL ECS ) ) ( ( RUS AMY MOS ) DSB )",
    "SUB ( ( RUS FLT ( STP NCS ) ) BLD ) ( ( RUS AMY WAR ) REM ) ( RUS WVE )",
    "REJ ( SUB ( SPR 1901 ) ( ( FRA AMY PAR ) HLD ) )",
    "THX ( ( ENG AMY LVP ) HLD ) ( MBV )",
    "THX ( ( ENG FLT LON ) MTO ( STP NCS ) ) ( FAR )",
    "THX ( ( RUS FLT STP ) BLD ) ( CST )",
    "MIS",
    "MIS ( ITA FLT NAP ) ( ITA AMY ROM )",
    "MIS ( ITA AMY ROM MRT ( APU TUS ) )",
    "MIS ( -1 )",
    "MIS ( 2 )",
    "REJ ( MIS )",
    "NOT ( SUB )",
    "NOT ( SUB ( ( ENG AMY LVP ) HLD ) )",
    "YES ( NOT ( SUB ) )",
    "GOF",
    "YES ( GOF )",
    "NOT ( GOF )",
    "YES ( NOT ( GOF ) )",
    "REJ ( NOT ( GOF ) )",
    "ORD ( SPR 1901 ) ( ( ENG FLT EDI ) MTO NWG ) ( SUC )",
    "ORD ( SPR 1901 ) ( ( ENG FLT EDI ) MTO NWG ) ( BNC )",
    "ORD ( FAL 1901 ) ( ( ENG FLT EDI ) SUP ( ENG FLT LON ) ) ( CUT RET )",
    "ORD ( FAL 1901 ) ( ( ITA FLT ION ) CVY ( ITA AMY TUN ) CTO SYR ) ( DSR )",
    "ORD ( FAL 1901 ) ( ( ITA FLT ION ) CVY ( ITA AMY TUN ) CTO SYR ) ( NSO )",
    "ORD ( FAL 1901 ) ( ( ENG AMY LVP ) HLD ) ( RET )",
    "ORD ( FAL 1901 ) ( ( ENG AMY LVP ) MTO MOS ) ( FAR )",
    "ORD ( WIN 1901 ) ( RUS WVE ) ( SUC )",
    "TME",
    "TME ( 300 )",
    "YES ( TME ( 60 ) )",
    "REJ ( TME )",
    "NOT ( TME )",
    "NOT ( TME ( 60 ) )",
    "NOT ( CCD ( TUR ) )",
    "DRW",
    "YES ( DRW )",
    "NOT ( DRW )",
    "YES ( NOT ( DRW ) )",
    "SLO ( ENG )",
    "SMR ( AUT 1914 ) ( AUS ( 'user' ) ( 'v0.0.0' ) 3 ) ( ENG ( 'Albert' ) ( 'v6.0.1' ) 22 ) "
    "( TUR ( 'DumbBot' ) ( '8' ) 0 1910 )",
    "SMR",
    "OFF",
    "CCD ( TUR )",
    "OUT ( ITA )",
    "ADM ( 'Albert' ) ( 'hello everyone' )",
    "REJ ( ADM ( 'Albert' ) ( 'hello everyone' ) )",
    "SVE ( 'game_1' )",
    "YES ( SVE ( 'game_1' ) )",
    "LOD ( 'game_1' )",
    "REJ ( LOD ( 'game_1' ) )",
    "HUH ( ERR DRW )",
    "HUH ( NME ( 'name' ) ( ERR -3 ) )",
    "PRN ( SUB ( ( ENG AMY LVP ) HLD )",
    "PRN ( NOT ( GOF ) ) )",
]

PRESS = [
    # level 10
    "SND ( GER ) ( PRP ( PCE ( ENG GER ) ) )",
    "SND ( SPR 1901 ) ( GER ) ( PRP ( PCE ( ENG GER ) ) )",
    "YES ( SND ( SPR 1901 ) ( GER ) ( PRP ( PCE ( ENG GER ) ) ) )",
    "FRM ( ENG ) ( GER ) ( PRP ( PCE ( ENG GER ) ) )",
    "FRM ( ENG ) ( GER FRA ) ( PRP ( ALY ( ENG GER ) VSS ( FRA RUS ) ) )",
    "SND ( GER ) ( YES ( PRP ( PCE ( ENG GER ) ) ) )",
    "SND ( GER ) ( REJ ( PRP ( DRW ) ) )",
    "SND ( GER ) ( BWX ( PRP ( SLO ( ENG ) ) ) )",
    "SND ( GER ) ( HUH ( ERR PRP ( PCE ( ENG GER ) ) ) )",
    "SND ( GER ) ( CCL ( PRP ( PCE ( ENG GER ) ) ) )",
    "SND ( GER ) ( FCT ( NOT ( PCE ( ENG GER ) ) ) )",
    "SND ( GER ) ( PRP ( NAR ( PCE ( ENG GER ) ) ) )",
    "SND ( GER ) ( PRP ( DRW ( ENG GER FRA ) ) )",
    "SND ( GER ) ( TRY ( ) )",
    "SND ( GER ) ( TRY ( PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX CCL FCT ) )",
    "DRW ( ENG GER )",
    "YES ( DRW ( ENG GER ) )",
    "NOT ( DRW ( ENG GER ) )",
    # level 20
    "SND ( SPR 1901 ) ( GER ) ( PRP ( XDO ( ( GER AMY MUN ) SUP ( ITA AMY VEN ) MTO TYR ) ) )",
    "SND ( SPR 1901 ) ( AUS ) ( YES ( PRP ( DMZ ( AUS GER ) ( BOH ) ) ) )",
    # level 30
    "SND ( FRA GER ) ( PRP ( AND ( PCE ( FRA GER ) ) ( DMZ ( FRA GER ) ( BUR ) ) ) )",
    "SND ( FRA ) ( PRP ( ORR ( XDO ( ( FRA AMY PAR ) HLD ) ) "
    "( XDO ( ( FRA AMY PAR ) MTO BUR ) ) ) )",
    # level 40
    "SND ( FRA ) ( PRP ( SCD ( FRA BEL SPA ) ( GER HOL ) ( ENG ) ) )",
    "SND ( FRA ) ( PRP ( OCC ( ENG UNT BEL ) ( FRA FLT ( SPA NCS ) ) ) )",
    # level 50
    "SND ( FRA ) ( PRP ( CHO ( 1 2 ) ( PCE ( FRA ENG ) ) ( PCE ( FRA GER ) ) ( DRW ) ) )",
    "SND ( FRA ) ( PRP ( AND ( ORR ( DRW ) ( SLO ( FRA ) ) ) ( PCE ( FRA GER ) ) ) )",
    # level 60
    "SND ( FRA ) ( INS ( PCE ( FRA ENG ) ) )",
    "SND ( FRA ) ( QRY ( PCE ( FRA ENG ) ) )",
    "SND ( FRA ) ( SUG ( PCE ( FRA ENG ) ) )",
    "SND ( FRA ) ( THK ( PCE ( FRA ENG ) ) )",
    "SND ( FRA ) ( THK ( QRY ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( THK ( NOT ( QRY ( PCE ( FRA ENG ) ) ) ) )",
    "SND ( FRA ) ( THK ( NAR ( QRY ( PCE ( FRA ENG ) ) ) ) )",
    "SND ( FRA ) ( FCT ( QRY ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( FCT ( NOT ( QRY ( PCE ( FRA ENG ) ) ) ) )",
    "SND ( FRA ) ( IDK ( QRY ( PCE ( FRA ENG ) ) ) )",
    # level 70
    "SND ( FRA ) ( WHT ( ENG FLT ( STP NCS ) ) )",
    "SND ( FRA ) ( HOW ( BEL ) )",
    "SND ( FRA ) ( HOW ( GER ) )",
    "SND ( FRA ) ( IDK ( WHT ( ENG FLT LON ) ) )",
    "SND ( FRA ) ( REJ ( HOW ( BEL ) ) )",
    # level 80
    "SND ( FRA ) ( EXP ( SPR 1901 ) ( PRP ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( EXP ( SPR 1901 ) ( YES ( PRP ( PCE ( FRA ENG ) ) ) ) )",
    "SND ( FRA ) ( SRY ( EXP ( SPR 1901 ) ( PRP ( PCE ( FRA ENG ) ) ) ) )",
    "SND ( FRA ) ( IDK ( EXP ( SPR 1901 ) ( PRP ( PCE ( FRA ENG ) ) ) ) )",
    # level 90
    "SND ( FRA ) ( PRP ( FOR ( FAL 1902 ) ( XDO ( ( FRA AMY PAR ) MTO BUR ) ) ) )",
    "SND ( FRA ) ( PRP ( FOR ( ( SPR 1902 ) ( FAL 1903 ) ) ( NOT ( PCE ( FRA ENG ) ) ) ) )",
    # level 100
    "SND ( FRA ) ( IFF ( PCE ( FRA ENG ) ) THN ( PRP ( DRW ) ) )",
    "SND ( FRA ) ( IFF ( PCE ( FRA ENG ) ) THN ( PRP ( DRW ) ) ELS ( REJ ( PRP ( DRW ) ) ) )",
    # level 110
    "SND ( FRA ) ( PRP ( XOY ( FRA ) ( ENG ) ) )",
    "SND ( FRA ) ( PRP ( YDO ( FRA ) ( ENG FLT LON ) ( ENG AMY LVP ) ) )",
    # level 120
    "SND ( FRA ) ( PRP ( SND ( ENG ) ( GER RUS ) ( PRP ( PCE ( ENG GER ) ) ) ) )",
    "SND ( FRA ) ( PRP ( FWD ( GER RUS ) ( ENG ) ( FRA ) ) )",
    "SND ( FRA ) ( PRP ( BCC ( ENG ) ( GER RUS ) ( FRA ) ) )",
    "SND ( FRA ) ( PRP ( NOT ( FWD ( GER ) ( ENG ) ( FRA ) ) ) )",
    "SND ( FRA ) ( FRM ( GER ) ( ENG ) ( PRP ( PCE ( ENG GER ) ) ) )",
    # level 130
    "SND ( FRA ) ( WHY ( THK ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( WHY ( FCT ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( WHY ( PRP ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( POB ( WHY ( INS ( PCE ( FRA ENG ) ) ) ) )",
    "SND ( FRA ) ( IDK ( SUG ( PCE ( FRA ENG ) ) ) )",
    # level 8000
    "SND ( FRA ) ( 'shall we dance?' )",
    "FRM ( ENG ) ( FRA ) ( 'it''s a deal' )",
]

# DAIDE++ (levels 140-160): the text form only.
TEXT_ONLY = [
    "SND ( FRA ) ( UHY ( PRP ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( HPY ( PRP ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( ANG ( PRP ( PCE ( FRA ENG ) ) ) )",
    "SND ( FRA ) ( PRP ( ROF ) )",
    "SND ( FRA ) ( INS ( ROF ) )",
    "SND ( FRA ) ( PRP ( ULB ( ENG 0.5 ) ) )",
    "SND ( FRA ) ( PRP ( UUB ( ENG -1.25e-05 ) ) )",
    "SND ( FRA ) ( TRY ( UHY ROF ULB ) )",
]


@pytest.mark.parametrize("text", LEVEL_0 + PRESS + TEXT_ONLY)
def test_text_round_trip(text: str) -> None:
    message = parse_text(text, STANDARD)
    assert render_text(message, STANDARD) == text
    assert parse_text(render_text(message, STANDARD), STANDARD) == message


@pytest.mark.parametrize("text", LEVEL_0 + PRESS)
def test_binary_round_trip(text: str) -> None:
    message = parse_text(text, STANDARD)
    payload = render_payload(message, STANDARD)
    assert parse_payload(payload, STANDARD) == message
    assert C.atoms_text(atoms_from_payload(payload)) == text


def test_text_only_press_has_no_binary_form() -> None:
    from diplomat.protocol.atoms import EncodeError

    for text in TEXT_ONLY:
        with pytest.raises(EncodeError):
            render_payload(parse_text(text, STANDARD), STANDARD)


ENG_LVP = Unit("ENG", "A", "LVP")
ENG_LON = Unit("ENG", "F", "LON")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NME ('Albert') ('v6.0.1')", messages.Nme("Albert", "v6.0.1")),
        ("IAM (TUR) (132)", messages.Iam("TUR", 132)),
        ("MAP ('STANDARD')", messages.Map("STANDARD")),
        ("HLO (ENG) (1234) ((MTL 1200) (LVL 20) (NPB))",
         messages.Hlo("ENG", 1234, messages.Variant(level=20, mtl=1200, npb=True))),
        ("SCO (AUS BUD) (UNO BEL)", messages.Sco((("AUS", ("BUD",)), ("UNO", ("BEL",))))),
        ("NOW (SPR 1901) (RUS FLT (STP SCS)) (TUR FLT CON MRT (BLA (BUL ECS)))",
         messages.Now(Phase("SPR", 1901), (Unit("RUS", "F", "STP/SC"),
               Dislodged(Unit("TUR", "F", "CON"), None, ("BLA", "BUL/EC"))))),
        ("SUB ((ENG AMY LVP) HLD)", messages.Sub((Hold(ENG_LVP),))),
        ("SUB (FAL 1902) ((ENG FLT LON) MTO (STP NCS))",
         messages.Sub((Move(ENG_LON, "STP/NC"),), Phase("FAL", 1902))),
        ("SUB ((ENG FLT LON) SUP (ENG AMY LVP))", messages.Sub((SupportHold(ENG_LON, ENG_LVP),))),
        ("SUB ((ENG FLT LON) SUP (ENG AMY LVP) MTO YOR)",
         messages.Sub((SupportMove(ENG_LON, ENG_LVP, "YOR"),))),
        ("SUB ((ENG FLT NTH) CVY (ENG AMY LVP) CTO NWY)",
         messages.Sub((Convoy(Unit("ENG", "F", "NTH"), ENG_LVP, "NWY"),))),
        ("SUB ((ENG AMY LVP) CTO NWY VIA (IRI NAO NWG))",
         messages.Sub((Move(ENG_LVP, "NWY", True, ("IRI", "NAO", "NWG")),))),
        ("SUB ((ENG FLT LON) RTO (SPA SCS))", messages.Sub((Retreat(ENG_LON, "SPA/SC"),))),
        ("SUB ((ENG FLT LON) DSB)", messages.Sub((Disband(ENG_LON),))),
        ("SUB ((ENG FLT LON) BLD)", messages.Sub((Build(ENG_LON),))),
        ("SUB ((ENG FLT LON) REM)", messages.Sub((Remove(ENG_LON),))),
        ("SUB (ENG WVE)", messages.Sub((Waive("ENG"),))),
        ("THX ((ENG AMY LVP) HLD) (NYU)", messages.Thx(Hold(ENG_LVP), Note.NYU)),
        ("ORD (SPR 1901) ((ENG AMY LVP) HLD) (SUC)",
         messages.Ord(Phase("SPR", 1901), Hold(ENG_LVP), Result(Outcome.SUC))),
        ("ORD (SPR 1901) ((ENG AMY LVP) MTO YOR) (BNC RET)",
         messages.Ord(Phase("SPR", 1901), Move(ENG_LVP, "YOR"), Result(Outcome.BNC, True))),
        ("ORD (SPR 1901) ((ENG AMY LVP) HLD) (RET)",
         messages.Ord(Phase("SPR", 1901), Hold(ENG_LVP), messages.NoteResult(None, True))),
        ("ORD (SPR 1901) ((ENG AMY LVP) MTO MOS) (FAR)",
         messages.Ord(Phase("SPR", 1901), Move(ENG_LVP, "MOS"), messages.NoteResult(Note.FAR))),
        ("MIS (-2)", messages.Mis(count=-2)),
        ("NOT (SUB)", messages.Not(messages.Sub())),
        ("NOT (CCD (ENG))", messages.Not(messages.Ccd("ENG"))),
        ("SMR (SPR 1905) (ENG ('a') ('b') 0 1905)",
         messages.Smr(Phase("SPR", 1905), (messages.SmrEntry("ENG", "a", "b", 0, 1905),))),
        ("SND (SPR 1901) (GER) (PRP (PCE (ENG GER)))",
         messages.Snd(("GER",), messages.Prp(messages.Pce(("ENG", "GER"))), Phase("SPR", 1901))),
        ("FRM (ENG) (GER) (YES (PRP (DRW)))",
         messages.Frm("ENG", ("GER",), messages.Yes(messages.Prp(messages.Drw())))),
        ("SND (FRA) (PRP (OCC (ENG UNT BEL)))",
         messages.Snd(("FRA",), messages.Prp(messages.Occ((messages.AnyUnit("ENG", "BEL"),))))),
        ("SND (FRA) (PRP (FOR ((SPR 1902) (FAL 1903)) (DRW)))",
         messages.Snd(("FRA",), messages.Prp(
             messages.For(Phase("SPR", 1902), messages.Drw(), Phase("FAL", 1903))))),
        ("SND (FRA) (THK (NOT (QRY (DRW))))",
         messages.Snd(("FRA",), messages.Thk(messages.Not(messages.Qry(messages.Drw()))))),
        ("SND (FRA) ('hi')", messages.Snd(("FRA",), messages.FreeText("hi"))),
        ("HUH (ERR DRW)", messages.Huh(("ERR", "DRW"))),
        ("PRN (NOT (GOF)", messages.Prn(("NOT", "(", "GOF"))),
    ],
)  # fmt: skip
def test_typed_values(text: str, expected: object) -> None:
    assert parse_text(text, STANDARD) == expected
