"""The wheel's and the sdist's long description (the index page): docs/python.md, with its relative
links made absolute, to the files of the release's tag in the repository that
$BANKCHECK_REPOSITORY_URL names (e.g. https://github.com/<owner>/bankcheck; release.yml sets it).
Relative links point nowhere on the index page. Without that variable (a local `pip install .`,
whose description no index shows) the text is docs/python.md as it is.

A scikit-build-core metadata provider (pyproject.toml: tool.scikit-build.metadata.readme);
ci/jobs/wheel.sh renders the built description as the index does and fails on any relative link left.
"""

import os
import posixpath
import re
from pathlib import Path
from typing import Any, Dict, Mapping

SOURCE = "docs/python.md"
VARIABLE = "BANKCHECK_REPOSITORY_URL"
# An inline link's or image's target, `[text](target)` or `[text](target "title")`.
LINK_TARGET = re.compile(r"(\]\()([^)\s]+)")
ABSOLUTE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|#)")


def absolute_links(text: str, source: str, base: str) -> str:
    """TEXT (the file SOURCE, relative to the repository's root) with each relative link target
    made BASE/<its path from the root>."""
    folder = posixpath.dirname(source)

    def replace(match: "re.Match[str]") -> str:
        target = match.group(2)
        if ABSOLUTE.match(target):
            return match.group(0)
        path, hash_mark, fragment = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(folder, path))
        if resolved.startswith("../"):
            raise ValueError(f"{source}: the link {target} leaves the repository")
        return match.group(1) + f"{base.rstrip('/')}/{resolved}" + hash_mark + fragment

    return LINK_TARGET.sub(replace, text)


def dynamic_metadata(field: str, settings: Mapping[str, Any], project: Mapping[str, Any]) -> Dict[str, str]:
    if field != "readme" or settings:
        raise ValueError("long_description provides the readme field only, with no settings")
    text = Path(SOURCE).read_text(encoding="utf-8")
    repository = os.environ.get(VARIABLE, "")
    if repository:
        if not re.match(r"^https://[^\s/]+/[^\s]+[^/\s]$", repository):
            raise ValueError(f"{VARIABLE}={repository!r} is not a repository's https URL without a trailing /")
        text = absolute_links(text, SOURCE, f"{repository}/blob/v{project['version']}")
    return {"content-type": "text/markdown", "text": text}
