"""Record classes (:mod:`bot.record`) behave as the dataclasses they stand for.

Every record class of the bot is compared with a real ``dataclasses``
dataclass declaring the same fields with the same options: the ``__init__``
parameters and defaults, ``repr``, equality (and which fields it ignores),
hashing, refused assignment when frozen, :func:`bot.record.replace`.  Then
the rules of :mod:`dataclasses` the bot's classes do not all exercise:
``ClassVar``, mutable defaults, a base record's fields, ``__post_init__``, a
method the class defines itself.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import ClassVar, Optional

import pytest

import bot
from bot import record
from bot.record import FIELDS, FROZEN, MISSING, FrozenInstanceError, dataclass, field, fields, replace


def record_classes() -> list[type]:
    """Every record class defined in a module of the bot (each module imported)."""
    found = []
    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if info.name.startswith(("bot.sample.template", "bot.sample.upstream")) or info.name == "bot.__main__":
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == info.name and FIELDS in value.__dict__:
                found.append(value)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


CLASSES = record_classes()


def twin(cls) -> type:
    """A real dataclass with the fields (names, defaults, options) and frozen-ness of the record ``cls``."""
    ns: dict = {"__annotations__": {}, "__qualname__": cls.__qualname__}
    for f in fields(cls):
        ns["__annotations__"][f.name] = "object"
        ns[f.name] = dataclasses.field(
            default=dataclasses.MISSING if f.default is MISSING else f.default,
            default_factory=dataclasses.MISSING if f.default_factory is MISSING else f.default_factory,
            repr=f.repr, compare=f.compare, hash=f.hash)
    return dataclasses.dataclass(frozen=getattr(cls, FROZEN))(type(cls.__name__, (), ns))


def parameters(cls) -> list[tuple[str, str, object]]:
    return [(p.name, repr(p.default), p.kind) for p in inspect.signature(cls.__init__).parameters.values()]


def sample_arguments(cls) -> dict[str, object]:
    """A distinct hashable value for every field without a default."""
    return {f.name: f"value-{i}" for i, f in enumerate(fields(cls))
            if f.default is MISSING and f.default_factory is MISSING}


def test_the_bot_declares_its_records_with_bot_record():
    assert len(CLASSES) >= 60
    assert {c.__module__ for c in CLASSES} >= {"bot.plan", "bot.engine.read", "bot.pack.pdsc", "bot.config"}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_record_class_behaves_as_the_same_dataclass(cls):
    ref = twin(cls)
    assert parameters(cls) == parameters(ref)
    args = sample_arguments(cls)
    mine, theirs = cls(**args), ref(**args)
    assert repr(mine) == repr(theirs)
    assert mine == cls(**args) and (theirs == ref(**args))
    assert mine != theirs                       # another class: never equal
    for f in fields(cls):
        changed = {**args, f.name: ("another value",)}
        assert (mine == cls(**changed)) == (theirs == ref(**changed)), f.name
    if getattr(cls, FROZEN):
        assert hash(mine) == hash(theirs)
        with pytest.raises(FrozenInstanceError):
            setattr(mine, fields(cls)[0].name, "x") if fields(cls) else setattr(mine, "x", 1)
        assert isinstance(FrozenInstanceError(), AttributeError)
    else:
        assert cls.__hash__ is None and ref.__hash__ is None
    if fields(cls):
        first = fields(cls)[0].name
        assert replace(mine, **{first: ("replaced",)}) == cls(**{**args, first: ("replaced",)})
    assert cls.__match_args__ == ref.__match_args__


def test_rules_of_dataclasses_that_records_keep():
    @dataclass(frozen=True)
    class Base:
        a: int
        shared: ClassVar[int] = 5
        b: list = field(default_factory=list)

    @dataclass(frozen=True)
    class Leaf(Base):
        c: str = "c"
        hidden: Optional[int] = field(default=None, repr=False, compare=False)

        def __repr__(self):
            return "own repr"

        def __post_init__(self):
            object.__setattr__(self, "c", self.c.upper())

    assert [f.name for f in fields(Leaf)] == ["a", "b", "c", "hidden"]
    assert Leaf.shared == 5 and "shared" not in Leaf.__record_fields__
    leaf = Leaf(1)
    assert (leaf.a, leaf.b, leaf.c, leaf.hidden, repr(leaf)) == (1, [], "C", None, "own repr")
    assert Leaf(1).b is not leaf.b                          # one new list per instance
    assert Leaf(1, hidden=3) == leaf and Leaf(2) != leaf
    assert repr(Base(1)) == f"{Base.__qualname__}(a=1, b=[])" and Base(1) == Base(1)
    assert replace(Base(1, [2]), a=3) == Base(3, [2])
    with pytest.raises(TypeError):
        replace(Base(1), z=1)

    @dataclass
    class Open:
        a: int
        b: int = 2

    box = Open(1)
    box.b = 3
    assert (box, Open.__hash__) == (Open(1, 3), None)
    with pytest.raises(TypeError):
        @dataclass
        class Thawed(Base):
            d: int = 0
    with pytest.raises(TypeError):
        fields(object())
    with pytest.raises(ValueError):
        @dataclass
        class Mutable:
            items: list = []
    with pytest.raises(TypeError):
        @dataclass
        class Order:
            a: int = 1
            b: int
    with pytest.raises(ValueError):
        field(default=1, default_factory=int)
    assert repr(MISSING) == "<factory>" and record.__all__


def test_importing_records_imports_neither_dataclasses_nor_inspect():
    out = subprocess.run([sys.executable, "-c", "import sys, bot.record, bot.model, bot.plan\n"
                          "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_no_module_of_the_bot_imports_dataclasses():
    root = Path(bot.__file__).parent
    importers = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[:2] in (("sample", "template"), ("sample", "upstream")):
            continue   # the shipped sample's files are data copied into repositories, not the bot's code
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) else [])
            if any(n and n.split(".")[0] == "dataclasses" for n in names):
                importers.append(str(path.relative_to(root)))
    assert importers == []
