"""The corpus: real reports as pasted, and errors torch raises live, each with the grade it gets.

The pasted reports are the set collected while the reader was written and the held-out sets, each collected after
the rules were frozen (their grades then are kept as ``grade_at_freeze``). The live errors are the team's own and the
held-out live sets, defects planted by helpers who never read the rules, graded once when written. A
changed grade fails its case, so a regression (or an improvement, whose grade should then be
raised in the corpus) shows. The advice must fit the situation: integer and device
errors are never answered with a precision policy, two integer dtypes never with a float cast, and
nothing is confidently wrong.
"""

from __future__ import annotations

import importlib

import pytest

import castwise as cw
from castwise.explainer import Explanation, Family
from castwise.explainer.spelling import is_floating

from .grading import GRADES, Expect, confidently_wrong, grade, pasted_cases
from .live_cases import LIVE, LiveCase, raised

HELD_OUT = ("held_out", "held_out_2", "held_out_3", "held_out_4", "held_out_5", "held_out_6", "held_out_7",
            "held_out_8", "held_out_9", "held_out_10", "held_out_11", "held_out_12", "held_out_13",
            "held_out_14", "held_out_15", "held_out_16", "held_out_17", "held_out_18", "held_out_19", "held_out_20",
            "held_out_21", "held_out_22", "held_out_23", "held_out_24", "held_out_25", "held_out_26", "held_out_27",
            "held_out_28", "held_out_29", "held_out_30", "held_out_31", "held_out_32", "held_out_33", "held_out_34",
            "held_out_35", "held_out_36", "held_out_37", "held_out_38", "held_out_39", "held_out_40", "held_out_41",
            "held_out_42", "held_out_43", "held_out_44", "held_out_45", "held_out_46", "held_out_47", "held_out_48",
            "held_out_49", "held_out_50", "held_out_51", "held_out_52", "held_out_53", "held_out_54", "held_out_55",
            "held_out_56", "held_out_57", "held_out_58", "held_out_59", "held_out_60", "held_out_61",
            "held_out_62", "held_out_63", "held_out_64", "held_out_65", "held_out_66", "held_out_67",
            "held_out_68", "held_out_69", "held_out_70", "held_out_71", "held_out_72", "held_out_73",
            "held_out_74", "held_out_75", "held_out_76", "held_out_77", "held_out_78", "held_out_79",
            "held_out_80", "held_out_81", "held_out_82", "held_out_83", "held_out_84",
            "held_out_85", "held_out_86", "held_out_87", "held_out_88", "held_out_89", "held_out_90", "held_out_91",
            "held_out_92", "held_out_93", "held_out_94", "held_out_95", "held_out_96", "held_out_97",
            "held_out_98", "held_out_99", "held_out_100",
            "held_out_101", "held_out_102", "held_out_103",
            "held_out_104", "held_out_105", "held_out_106",
            "held_out_107", "held_out_108", "held_out_109",
            "held_out_110", "held_out_111", "held_out_112", "held_out_113", "held_out_114",
            "held_out_115", "held_out_116", "held_out_117", "held_out_118",
            "held_out_119", "held_out_120", "held_out_121", "held_out_122", "held_out_123", "held_out_124",
            "held_out_125", "held_out_126", "held_out_127", "held_out_128", "held_out_129", "held_out_130",
            "held_out_131", "held_out_132", "held_out_133", "held_out_134", "held_out_135", "held_out_136",
            "held_out_137", "held_out_138", "held_out_139",
            "held_out_140", "held_out_141", "held_out_142",
            "held_out_143", "held_out_144", "held_out_145",
            "held_out_146", "held_out_147", "held_out_148",
            "held_out_149", "held_out_150", "held_out_151",
            "held_out_152", "held_out_153", "held_out_154",
            "held_out_155", "held_out_156", "held_out_157",
            "held_out_158", "held_out_159", "held_out_160",
            "held_out_161", "held_out_162", "held_out_163",
            "held_out_164", "held_out_165", "held_out_166",
            "held_out_167", "held_out_168", "held_out_169",
            "held_out_170", "held_out_171", "held_out_172",
            "held_out_173", "held_out_174", "held_out_175",
            "held_out_176", "held_out_177", "held_out_178",
            "held_out_179", "held_out_180", "held_out_181",
            "held_out_182", "held_out_183", "held_out_184",
            "held_out_185", "held_out_186",
            "held_out_187", "held_out_188", "held_out_189", "held_out_190", "held_out_191", "held_out_192",
            "held_out_193", "held_out_194", "held_out_195", "held_out_196", "held_out_197", "held_out_198",
            "held_out_199", "held_out_200", "held_out_201", "held_out_202", "held_out_203", "held_out_204",
            "held_out_205", "held_out_206", "held_out_207", "held_out_208", "held_out_209", "held_out_210",
            "held_out_211", "held_out_212", "held_out_213", "held_out_214", "held_out_215", "held_out_216",
            "held_out_217", "held_out_218", "held_out_219", "held_out_220", "held_out_221", "held_out_222",
            "held_out_223", "held_out_224", "held_out_225", "held_out_226", "held_out_227", "held_out_228",
            "held_out_229", "held_out_230", "held_out_231", "held_out_232", "held_out_233", "held_out_234",
            "held_out_235", "held_out_236", "held_out_237", "held_out_238", "held_out_239", "held_out_240",
            "held_out_241", "held_out_242", "held_out_243", "held_out_244", "held_out_245", "held_out_246",
            "held_out_247", "held_out_248", "held_out_249", "held_out_250", "held_out_251", "held_out_252",
            "held_out_253", "held_out_254", "held_out_255", "held_out_256", "held_out_257", "held_out_258",
            "held_out_259", "held_out_260", "held_out_261", "held_out_262", "held_out_263", "held_out_264",
            "held_out_265", "held_out_266", "held_out_267", "held_out_268", "held_out_269", "held_out_270",
            "held_out_271", "held_out_272", "held_out_273", "held_out_274", "held_out_275", "held_out_276",
            "held_out_277", "held_out_278", "held_out_279", "held_out_280", "held_out_281", "held_out_282",
            "held_out_283", "held_out_284", "held_out_285", "held_out_286", "held_out_287", "held_out_288",
            "held_out_289", "held_out_290", "held_out_291", "held_out_292", "held_out_293", "held_out_294",
            "held_out_295", "held_out_296", "held_out_297", "held_out_298", "held_out_299", "held_out_300",
            "held_out_301", "held_out_302", "held_out_303",
            "held_out_304", "held_out_305", "held_out_306", "held_out_307", "held_out_308", "held_out_309",
            "held_out_310", "held_out_311", "held_out_312", "held_out_313", "held_out_314", "held_out_315", "held_out_316",
            "held_out_317", "held_out_318", "held_out_321", "held_out_322", "held_out_323", "held_out_324",
            "held_out_328", "held_out_329", "held_out_330", "held_out_331", "held_out_332", "held_out_333", "held_out_334",
            "held_out_335", "held_out_338", "held_out_340", "held_out_341", "held_out_342", "held_out_343",
            "held_out_344", "held_out_345", "held_out_346", "held_out_347", "held_out_348",
            "held_out_349", "held_out_350", "held_out_351", "held_out_352", "held_out_353", "held_out_354",
            "held_out_355", "held_out_356", "held_out_357", "held_out_359", "held_out_360", "held_out_361",
            "held_out_362", "held_out_363", "held_out_364", "held_out_365", "held_out_366", "held_out_367",
            "held_out_368", "held_out_369", "held_out_370", "held_out_371", "held_out_372", "held_out_373",
            "held_out_378", "held_out_379", "held_out_380", "held_out_381", "held_out_382", "held_out_383",
            "held_out_384", "held_out_385", "held_out_386", "held_out_387", "held_out_388", "held_out_389",
            "held_out_390", "held_out_391", "held_out_392", "held_out_393", "held_out_394", "held_out_395",
            "held_out_396", "held_out_397", "held_out_398", "held_out_401", "held_out_403",
            "held_out_404", "held_out_405", "held_out_406", "held_out_407", "held_out_408",
            "held_out_409", "held_out_410", "held_out_411", "held_out_412", "held_out_413",
            "held_out_414", "held_out_415", "held_out_416", "held_out_417", "held_out_418", "held_out_419", "held_out_420",
            "held_out_421", "held_out_422", "held_out_423", "held_out_424", "held_out_425", "held_out_426")
PASTED = pasted_cases() + [case for corpus in HELD_OUT for case in pasted_cases(corpus)]
LIVE_HELD_OUT: tuple[str, ...] = ("live_held_out_1", "live_held_out_2", "live_held_out_3", "live_held_out_4",
                                 "live_held_out_5", "live_held_out_6", "live_held_out_7", "live_held_out_8",
                                 "live_held_out_9", "live_held_out_10", "live_held_out_11",
                                 "live_held_out_12", "live_held_out_13", "live_held_out_14", "live_held_out_15",
                                 "live_held_out_16", "live_held_out_17", "live_held_out_18",
                                 "live_held_out_19", "live_held_out_20", "live_held_out_21",
                                 "live_held_out_22", "live_held_out_23", "live_held_out_24", "live_held_out_25",
                                 "live_held_out_26", "live_held_out_27", "live_held_out_28", "live_held_out_29",
                                 "live_held_out_30", "live_held_out_31", "live_held_out_32", "live_held_out_33",
                                 "live_held_out_34", "live_held_out_35", "live_held_out_36",
                                 "live_held_out_37", "live_held_out_38", "live_held_out_39",
                                 "live_held_out_40", "live_held_out_41", "live_held_out_42",
                                 "live_held_out_43", "live_held_out_44", "live_held_out_45", "live_held_out_46",
                                 "live_held_out_47", "live_held_out_48",
                                 "live_held_out_49", "live_held_out_50", "live_held_out_51",
                                 "live_held_out_52", "live_held_out_53", "live_held_out_54",
                                 "live_held_out_55", "live_held_out_56", "live_held_out_57",
                                 "live_held_out_58", "live_held_out_59", "live_held_out_60",
                                 "live_held_out_61", "live_held_out_62", "live_held_out_63",
                                 "live_held_out_64", "live_held_out_65", "live_held_out_66",
                                 "live_held_out_67", "live_held_out_68",
                                 "live_held_out_69", "live_held_out_70",
                                 "live_held_out_71", "live_held_out_72", "live_held_out_73",
                                 "live_held_out_74", "live_held_out_75", "live_held_out_76",
                                 "live_held_out_77", "live_held_out_78", "live_held_out_79",
                                 "live_held_out_80", "live_held_out_81",
                                 "live_held_out_82", "live_held_out_83", "live_held_out_84",
                                 "live_held_out_85", "live_held_out_86", "live_held_out_87",
                                 "live_held_out_88", "live_held_out_89",
                                 "live_held_out_90", "live_held_out_91", "live_held_out_92",
                                 "live_held_out_93", "live_held_out_94", "live_held_out_95",
                                 "live_held_out_96", "live_held_out_97",
                                 "live_held_out_98", "live_held_out_99", "live_held_out_100",
                                 "live_held_out_101", "live_held_out_102", "live_held_out_103",
                                 "live_held_out_104", "live_held_out_105",
                                 "live_held_out_106", "live_held_out_107", "live_held_out_108",
                                 "live_held_out_109", "live_held_out_110", "live_held_out_111",
                                 "live_held_out_112", "live_held_out_113", "live_held_out_114",
                                 "live_held_out_115", "live_held_out_116", "live_held_out_117",
                                 "live_held_out_118", "live_held_out_119", "live_held_out_120",
                                 "live_held_out_121", "live_held_out_122", "live_held_out_123",
                                 "live_held_out_124", "live_held_out_125", "live_held_out_126",
                                 "live_held_out_127", "live_held_out_128", "live_held_out_129",
                                 "live_held_out_130", "live_held_out_131", "live_held_out_132",
                                 "live_held_out_133", "live_held_out_134", "live_held_out_135",
                                 "live_held_out_136", "live_held_out_137", "live_held_out_138",
                                 "live_held_out_139", "live_held_out_140", "live_held_out_141",
                                 "live_held_out_142", "live_held_out_143", "live_held_out_144",
                                 "live_held_out_145", "live_held_out_146", "live_held_out_147",
                                 "live_held_out_148", "live_held_out_149", "live_held_out_150", "live_held_out_151",
                                 "live_held_out_152", "live_held_out_153", "live_held_out_154", "live_held_out_155",
                                 "live_held_out_156", "live_held_out_157", "live_held_out_158", "live_held_out_159",
                                 "live_held_out_160", "live_held_out_161", "live_held_out_162", "live_held_out_163",
                                 "live_held_out_164", "live_held_out_165", "live_held_out_168",
                                 "live_held_out_169", "live_held_out_170", "live_held_out_171", "live_held_out_172",
                                 "live_held_out_173", "live_held_out_174", "live_held_out_175",
                                 "live_held_out_176", "live_held_out_177",
                                 "live_held_out_178", "live_held_out_179", "live_held_out_180",
                                 "live_held_out_181", "live_held_out_182", "live_held_out_183",
                                 "live_held_out_184", "live_held_out_185", "live_held_out_186")
"""Modules of this package, each with ``CASES``: defects planted by a helper who never read the rules, with the grade
the rules frozen at ``FROZEN_AT`` gave each."""


def live_held_out(name: str) -> dict[str, LiveCase]:
    """The cases of one held-out live set."""
    return importlib.import_module(f".{name}", __package__).CASES


LIVE_ALL = {**LIVE, **{f"{name}/{key}": case for name in LIVE_HELD_OUT for key, case in live_held_out(name).items()}}
POLICY_ADVICE = ("one policy", "cw.apply(model, 'bf16")
FLOAT_CASTS = (".float()", ".half()", "torch.float", "torch.bfloat16")


@pytest.mark.parametrize("case", PASTED, ids=[case.id for case in PASTED])
def test_each_pasted_report_gets_its_grade(case) -> None:
    explanation = cw.explain(case.text)
    assert grade(case.expect, explanation) == case.grade, explanation and explanation.as_dict()
    assert not confidently_wrong(case.expect, explanation)


@pytest.mark.parametrize("name", list(LIVE_ALL))
def test_each_live_error_gets_its_grade(name: str) -> None:
    case = LIVE_ALL[name]
    explanation = cw.explain(raised(case.action))
    assert grade(case.expect, explanation) == case.grade, explanation and explanation.as_dict()


@pytest.mark.parametrize(("word", "expected"), [("cast", "correct"), ("CAST", "correct"), ("ast", "partly"),
                                              ("dd", "partly"), (".to(", "correct"), ("(`x.to", "correct")])
def test_an_expected_word_counts_only_at_the_start_of_a_word(word: str, expected: str) -> None:
    explanation = cw.explain("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::Half")
    assert explanation is not None and "cast the odd one (`x.to(" in explanation.fix
    assert grade(Expect(explanation.kind.value, fix=(word,)), explanation) == expected


def test_the_corpus_is_real_reports_with_their_findings() -> None:
    assert len(PASTED) >= 60 and len(LIVE) >= 40
    assert len({case.id for case in PASTED}) == len(PASTED)
    for case in PASTED:
        assert case.source["url"].startswith(f"https://github.com/{case.source['repo']}/")
        assert case.text.strip() and case.finding and case.grade in GRADES
        assert case.graded_against in ("thread", "message")
        assert case.grade == "correct" or case.why
    for corpus in HELD_OUT:
        held_out = pasted_cases(corpus)
        assert held_out and all(case.grade_at_freeze in GRADES for case in held_out)
    sources = [case.source["url"] for case in PASTED]
    assert len(set(sources)) == len(sources)
    for name in LIVE_HELD_OUT:
        for case in live_held_out(name).values():
            assert case.grade in GRADES and case.grade_at_freeze in GRADES
            assert case.grade_at_freeze == "correct" or case.why


def test_the_live_goal_holds() -> None:
    """The issue's goal for live exceptions (90%), over every live error as graded now. On errors the rules had not
    met it is measured on each held-out live set when written, as the goal for pasted reports (85%) is on each
    held-out set when first met (``grade_at_freeze``, reported in BENCHMARKS.md); the grades the sets have now, after
    their misses were fixed, are asserted case by case above, and their sum is not that measure."""
    live = sum(case.grade == "correct" for case in LIVE_ALL.values()) / len(LIVE_ALL)
    assert live >= 0.90


def _explanations() -> list[Explanation]:
    found = [cw.explain(case.text) for case in PASTED] + [cw.explain(raised(case.action)) for case in LIVE_ALL.values()]
    return [explanation for explanation in found if explanation is not None]


def test_every_family_is_in_the_corpus() -> None:
    assert {explanation.family for explanation in _explanations()} == set(Family)


def test_the_advice_fits_the_situation() -> None:
    for explanation in _explanations():
        if explanation.family in (Family.INTEGER, Family.DEVICE):
            assert not any(words in explanation.fix for words in POLICY_ADVICE), explanation.as_dict()
        if len(explanation.dtypes) >= 2 and not any(is_floating(name) for name in explanation.dtypes):
            assert not any(cast in explanation.fix for cast in FLOAT_CASTS), explanation.as_dict()
        if explanation.family is Family.DEVICE:
            assert "not a dtype problem" in explanation.cause or "dtypes differ too" in explanation.cause
