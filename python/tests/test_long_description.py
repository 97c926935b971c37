"""Tests of the long description's provider (python/metadata/long_description.py, run by the wheel's
and the sdist's build, not installed): relative links made absolute into the repository at the
release's tag. ci/jobs/wheel.sh checks the built files' descriptions as the index renders them."""

import importlib.util
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "metadata" / "long_description.py"
spec = importlib.util.spec_from_file_location("long_description", SOURCE)
long_description = importlib.util.module_from_spec(spec)
spec.loader.exec_module(long_description)

BASE = "https://github.com/acme/bankcheck/blob/v1.2.3"


def test_relative_links_point_into_the_repository_at_the_tag():
    text = ("[run](run.md), [exit](run.md#exit-status), [example](../examples/python/), "
            "![image](img/a.png \"title\"), [here](#install), [pypi](https://pypi.org/p/bankcheck), "
            "[mail](mailto:a@b.c)")
    assert long_description.absolute_links(text, "docs/python.md", BASE) == (
        f"[run]({BASE}/docs/run.md), [exit]({BASE}/docs/run.md#exit-status), "
        f"[example]({BASE}/examples/python), ![image]({BASE}/docs/img/a.png \"title\"), [here](#install), "
        "[pypi](https://pypi.org/p/bankcheck), [mail](mailto:a@b.c)")


def test_a_link_out_of_the_repository_is_refused():
    with pytest.raises(ValueError, match="leaves the repository"):
        long_description.absolute_links("[x](../../etc/passwd)", "docs/python.md", BASE)


def test_the_description_is_docs_python_md(monkeypatch):
    monkeypatch.chdir(SOURCE.parents[2])
    original = Path("docs/python.md").read_text(encoding="utf-8")
    monkeypatch.delenv(long_description.VARIABLE, raising=False)
    assert long_description.dynamic_metadata("readme", {}, {"version": "1.2.3"}) == {
        "content-type": "text/markdown", "text": original}
    monkeypatch.setenv(long_description.VARIABLE, "https://github.com/acme/bankcheck")
    made = long_description.dynamic_metadata("readme", {}, {"version": "1.2.3"})["text"]
    assert made != original and f"]({BASE}/docs/run.md)" in made
    assert "](run.md)" not in made and "](../" not in made
    monkeypatch.setenv(long_description.VARIABLE, "https://github.com/acme/bankcheck/")
    with pytest.raises(ValueError, match="BANKCHECK_REPOSITORY_URL"):
        long_description.dynamic_metadata("readme", {}, {"version": "1.2.3"})
