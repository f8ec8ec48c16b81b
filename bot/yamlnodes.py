"""Alias-safe walks over PyYAML's composed node graph (no construction, no recursion).

An anchor used many times (``*a`` nested aliases, the "billion laughs"
shape) or a recursive alias (``a: &a [*a]``) is one shared node in the
composed graph, so visiting each node once keeps a walk linear and makes it
end.  Used by the workflow reader of the engine and the clayer/cproject
component reader of pack verification.
"""

from __future__ import annotations

from typing import Iterator

import yaml


def mappings(root: yaml.Node | None) -> Iterator[yaml.MappingNode]:
    """Every mapping node reachable from ``root`` (keys and values), each once, in no fixed order."""
    stack = [root] if root is not None else []
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, yaml.MappingNode):
            yield n
            stack.extend(v for kv in n.value for v in kv)
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)


def values_of(root: yaml.Node | None, key: str) -> Iterator[yaml.ScalarNode]:
    """The scalar values of every ``key:`` entry reachable from ``root`` (each mapping visited once)."""
    for m in mappings(root):
        for k, v in m.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key and isinstance(v, yaml.ScalarNode):
                yield v
