"""A small run of the benchmark harness: it generates, runs the three tools and tabulates."""

from __future__ import annotations

import os
import random
import shutil
import sys

import pytest

from repo_paths import ROOT, TESTS

sys.path.insert(0, ROOT)
from bench import run  # noqa: E402
from bench.generate import FLAWS, generate_repo, topology  # noqa: E402


def test_generator_is_seeded_and_covers_every_anti_pattern(tmp_path):
    first = generate_repo(str(tmp_path / "a"), units=4, resources=30, seed=5)
    second = generate_repo(str(tmp_path / "b"), units=4, resources=30, seed=5)
    assert [u.format for u in first] == ["yaml", "json", "sam", "tf"]
    for a, b in zip(first, second):
        if os.path.isfile(a.path):
            assert open(a.path, "rb").read() == open(b.path, "rb").read()
    flaws = {c.flaw for cell in topology(random.Random(0), 2000, flaw_rate=0.5) for c in cell.consumers}
    assert flaws == set(FLAWS) | {None}


def test_harness_smoke_run(tmp_path, capsys):
    scenario = run.Scenario("smoke", 3, 20, ("yaml", "json", "sam"))
    row = run.run_scenario(scenario, str(tmp_path), runs=1, seed=1, with_cfn_lint=False)
    assert row.files == 3 and row.resources >= 60
    assert row.fanout.exit_codes == {1}  # findings, no errors
    assert row.floor.exit_codes == {0}
    assert row.floor.mib > 0 and row.fanout.seconds > 0
    table = run.table([row])
    assert "| smoke |" in table and "n/a" in table


def test_healthy_generated_topologies_have_no_findings(tmp_path, capsys):
    from fanout_lint.cli.main import main

    generate_repo(str(tmp_path), units=8, resources=(10, 40), seed=11, flaw_rate=0.0)
    assert main(["check", "-j", "1", str(tmp_path)]) == 0
    assert "0 findings; 8 units checked" in capsys.readouterr().out


@pytest.mark.slow
def test_growth_times_each_size_in_process_and_reports_the_marginal_costs(tmp_path):
    from bench import growth

    # The smallest units the generator makes (it adds a dozen resources to any size): what
    # is checked is that the harness copies, times and tabulates, not what the times are.
    results = growth.measure(str(tmp_path), runs=1, seed=1, series=(("yaml", "YAML"), ("tf", "Terraform")),
                             sizes=(10, 20, 40), repeat=1, copies_to=40, one_process=True)
    assert set(results) == {"YAML", "Terraform", "YAML in one process", "Terraform in one process"}
    for label in results:
        sizes = sorted(results[label])
        assert len(sizes) == 3 and sizes[0] < sizes[1] < sizes[2]  # resources a unit, as generated
        assert sizes[2] < 2 * 40  # four units of 10, two of 20, one of 40: a unit's, not the run's
        assert all(fanout > 0 and floor > 0 for fanout, floor in results[label].values())
    assert len(os.listdir(tmp_path / "yaml-10")) == 4  # units of a size are copies, one a directory
    text = growth.table(results)
    assert "| YAML | " in text and "| Terraform | " in text
    assert "ratio (target ≤ 1.2)" in text  # the marginal at the largest size against the one at the second


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="counting instructions needs valgrind")
def test_growth_counts_instructions_of_a_process_a_size(tmp_path):
    # One size: what is checked is that both commands run under valgrind and their counts
    # are read; each process there costs seconds only to start Python. The marginals of
    # several sizes are the table's, checked on known counts below.
    from bench import growth

    results = growth.instructions(str(tmp_path), seed=1, series=(("yaml", "YAML"),), sizes=(20,))
    [(resources, (fanout, floor))] = results["YAML"].items()
    assert resources > 20  # the generator adds a dozen resources to any size
    assert fanout > floor > 10 ** 6 and fanout > 10 ** 7  # a whole process each, the lint more than the parse
    assert f"| YAML | {resources:,} | {fanout:,} | {floor:,} |  |  |" in growth.table(results, counted=True)


def test_the_counted_table_gives_the_marginal_instructions_and_their_ratio():
    from bench import growth

    counts = {"YAML": {100: (200_000_000, 50_000_000), 1_000: (290_000_000, 59_000_000),
                       10_000: (1_280_000_000, 158_000_000)}}
    text = growth.table(counts, counted=True)
    # (290 M - 200 M) / 900 resources, and (1,280 M - 290 M) / 9,000: 100,000 and 110,000
    assert "| YAML | 1,000 | 290,000,000 | 59,000,000 | 100,000 | 10,000 |" in text
    assert "| YAML | 100,000 | 110,000 | 1.10 | 10,000 | 11,000 | 1.10 |" in text


def test_breakdown_times_the_templates_of_a_directory(capsys):
    from bench import breakdown

    fixtures = os.path.join(TESTS, "fixtures", "shared-queue")
    templates = breakdown.templates_under(fixtures)
    assert any(t.endswith("cfn_fires.yaml") for t in templates) and any(t.endswith("cdk_fires.json") for t in templates)
    assert breakdown.main(["--cloudformation", fixtures, "--passes", "1"]) == 0
    out = capsys.readouterr().out
    assert f"CloudFormation templates of {fixtures}" in out and "| fanout-lint: graph |" in out
    assert "| fanout-lint: linking (the whole check less one with --no-link) |" in out


def test_breakdown_times_the_candidates_that_are_no_template_apart(tmp_path):
    from bench import breakdown

    template = tmp_path / "template.yaml"
    template.write_text("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    compose = tmp_path / "compose.yaml"  # names "service", holds no template
    compose.write_text("services:\n  web:\n    image: nginx\n")
    steps = breakdown.measure(str(tmp_path), [str(template), str(compose)], 1, whole=[str(template), str(compose)])
    assert steps["fanout-lint: candidates that are no template"] > 0
    assert "fanout-lint: the rest (discovery, report)" in steps
    alone = breakdown.measure(str(tmp_path), [str(template)], 1, whole=[str(template)])
    assert "fanout-lint: candidates that are no template" not in alone


def test_memory_measures_a_units_parsed_tree_and_graph(capsys):
    from bench import memory

    assert memory.main(["--resources", "40", "--formats", "yaml,json"]) == 0
    out = capsys.readouterr().out
    assert "| yaml | " in out and "| json | " in out and "parsed tree bytes a resource" in out


def test_memory_counts_what_the_parse_and_the_graph_keep(tmp_path):
    from bench import memory

    small = generate_repo(str(tmp_path / "small"), 1, 20, ("yaml",), seed=3)
    large = generate_repo(str(tmp_path / "large"), 1, 200, ("yaml",), seed=3)
    a, b = (memory.measure(unit.path) for unit in (small[0], large[0]))
    assert 0 < a["parse"] < b["parse"] and 0 < a["graph"] < b["graph"]
    assert a["resources"] < b["resources"]


def test_breakdown_times_terraform_units_step_by_step(capsys):
    from bench import breakdown

    fixtures = os.path.join(TESTS, "fixtures", "shared-queue")
    assert breakdown.main(["--terraform", fixtures, "--passes", "1"]) == 0
    out = capsys.readouterr().out
    for step in ("fair floor: parse", "HCL parse", "units loaded", "rules, findings, fix plans"):
        assert f": {step}" in out or f"| {step}" in out
    assert "× the fair floor" in out
    steps = breakdown.measure_terraform(fixtures, 1)  # tf_fires and tf_silent, parsed and loaded
    assert all(seconds > 0 for seconds in steps.values()), steps


def test_breakdown_times_each_step_against_the_floor(capsys):
    from bench import breakdown

    assert breakdown.main(["--units", "4", "--passes", "1", "--formats", "yaml,json,cdk"]) == 0
    out = capsys.readouterr().out
    assert "4 templates (yaml, json, cdk)" in out
    for step in ("fair floor: parse", "located parse", "graph", "rules, findings, fix plans", "whole check"):
        assert f"| {step}" in out or f": {step}" in out
