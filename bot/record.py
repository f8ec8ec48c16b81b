"""Record classes declared as :mod:`dataclasses` declares them, built without importing it.

``from bot.record import dataclass, field, replace`` stands for the part of
:mod:`dataclasses` the bot uses, with the same behaviour:

- ``@dataclass`` and ``@dataclass(frozen=True)`` on a class of annotated
  fields (a ``ClassVar`` annotation is not a field), in declaration order, a
  base record's fields first;
- ``field(default=..., default_factory=..., repr=..., compare=..., hash=...)``;
  a list, dict or set as a plain default is refused (``ValueError``), as there;
- the generated ``__init__`` (positional or keyword; a default factory is
  called for each instance; ``__post_init__`` is called when the class has one);
- ``__repr__`` ``Name(field=value, ...)`` over the ``repr`` fields;
- ``__eq__`` over the compared fields, only between instances of the same
  class (``NotImplemented`` otherwise);
- frozen: assigning or deleting a field raises :class:`FrozenInstanceError`
  (an ``AttributeError``) and ``__hash__`` hashes the tuple of the compared
  (or ``hash=True``) fields; not frozen: instances are unhashable;
- ``__match_args__``; a method the class defines itself is kept;
- :func:`replace` and :func:`fields`.

Why not :mod:`dataclasses` itself: importing it imports :mod:`inspect` (and
``ast``, ``dis``, ``tokenize``: about 10 ms of CPU on the project's 2-core
machine), and each ``@dataclass`` writes and compiles six methods when its
module is imported (about 0.6 ms a class; ``update`` loads 30 record classes,
``verify-pack`` 17).  Here one ``__init__`` is compiled per class (about
0.12 ms); the other methods are shared closures (docs/performance.md).
``tests/test_record_classes.py`` compares every record class of the bot with
a real dataclass of the same fields.
"""

from __future__ import annotations

from operator import attrgetter

__all__ = ["FrozenInstanceError", "MISSING", "Field", "dataclass", "field", "fields", "replace"]

#: Where a record class keeps its fields (name -> :class:`Field`, in ``__init__`` order).
FIELDS = "__record_fields__"
#: Where a record class keeps whether it is frozen.
FROZEN = "__record_frozen__"


class FrozenInstanceError(AttributeError):
    """Raised on assigning to (or deleting) a field of a frozen record."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"   # how dataclasses shows a defaulted-by-factory parameter


#: No default given (and, as an ``__init__`` default, "call the field's factory").
MISSING = _Missing()


class Field:
    """One field of a record: ``name``, ``default``, ``default_factory`` (each :data:`MISSING` when
    absent), ``repr``, ``compare`` and ``hash`` (None: as ``compare``)."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare", "hash")

    def __init__(self, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True,
                 hash: bool | None = None) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.hash = hash

    def __repr__(self) -> str:
        return (f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r}, "
                f"repr={self.repr!r}, compare={self.compare!r}, hash={self.hash!r})")


def field(*, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True,
          hash: bool | None = None):
    """A field with options, as :func:`dataclasses.field` (the options the bot uses)."""
    return Field(default, default_factory, repr, compare, hash)


def dataclass(cls=None, /, *, frozen: bool = False):
    """Make ``cls`` a record class (``@dataclass`` or ``@dataclass(frozen=True)``); see the module docstring."""
    def wrap(c):
        return _build(c, frozen)
    return wrap if cls is None else wrap(cls)


def fields(obj) -> tuple[Field, ...]:
    """The fields of a record class or instance, in ``__init__`` order; ``TypeError`` for anything else."""
    try:
        return tuple(getattr(obj, FIELDS).values())
    except AttributeError:
        raise TypeError("must be called with a record class or instance") from None


def replace(obj, /, **changes):
    """A new instance of ``obj``'s record class with the fields named in ``changes`` set, the others
    copied (:func:`dataclasses.replace`); an unknown field name raises ``TypeError``."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def _is_classvar(annotation) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__origin__", annotation)
    if isinstance(text, str):
        return text.startswith(("ClassVar", "typing.ClassVar"))
    return repr(text).startswith("typing.ClassVar")


def _key(names: tuple[str, ...]):
    """A function giving the tuple of the attributes ``names`` of an object."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = names[0]
        return lambda obj: (getattr(obj, one),)
    return lambda obj: ()


def _build(cls, frozen: bool):
    found: dict[str, Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        if FIELDS in base.__dict__:
            if base.__dict__[FROZEN] != frozen:
                raise TypeError("cannot inherit a frozen record from a non-frozen one, or the reverse")
            found.update(base.__dict__[FIELDS])
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        if isinstance(value, Field):
            f = value
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(value)
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             "use default_factory")
        f.name = name
        found[name] = f
    setattr(cls, FIELDS, found)
    setattr(cls, FROZEN, frozen)
    names = tuple(found)

    _set_new(cls, "__init__", _make_init(cls, found, frozen))
    _set_new(cls, "__repr__", _make_repr(tuple(n for n, f in found.items() if f.repr)))
    compared = _key(tuple(n for n, f in found.items() if f.compare))
    _set_new(cls, "__eq__", _make_eq(compared))
    explicit_hash = "__hash__" in cls.__dict__ and not (cls.__dict__["__hash__"] is None
                                                        and "__eq__" in cls.__dict__)
    if frozen:
        _set_new(cls, "__setattr__", _make_frozen_setattr(cls, names))
        _set_new(cls, "__delattr__", _make_frozen_delattr(cls, names))
        if not explicit_hash:
            hashed = _key(tuple(n for n, f in found.items() if (f.compare if f.hash is None else f.hash)))
            cls.__hash__ = lambda self: hash(hashed(self))
    elif not explicit_hash:
        cls.__hash__ = None
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = names
    if cls.__doc__ is None:
        cls.__doc__ = f"{cls.__name__}({', '.join(names)})"
    return cls


def _set_new(cls, name: str, fn) -> None:
    """Set a generated method unless the class body defines its own."""
    if name in cls.__dict__:
        return
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)


def _make_init(cls, found: dict[str, Field], frozen: bool):
    ns = {"__record_set": object.__setattr__, "__record_missing": MISSING}
    params: list[str] = []
    body: list[str] = []
    seen_default = False
    for name, f in found.items():
        if f.default_factory is not MISSING:
            ns[f"__record_factory_{name}"] = f.default_factory
            params.append(f"{name}=__record_missing")
            value = f"__record_factory_{name}() if {name} is __record_missing else {name}"
        elif f.default is not MISSING:
            ns[f"__record_default_{name}"] = f.default
            params.append(f"{name}=__record_default_{name}")
            value = name
        else:
            if seen_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            params.append(name)
            value = name
        seen_default = seen_default or f.default is not MISSING or f.default_factory is not MISSING
        body.append(f"__record_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    src = f"def __init__(self{''.join(', ' + p for p in params)}):\n" + "".join(
        f"    {line}\n" for line in body or ["pass"])
    exec(src, ns)
    return ns["__init__"]


def _make_repr(names: tuple[str, ...]):
    def __repr__(self) -> str:
        return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"
    return __repr__


def _make_eq(key):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _make_frozen_setattr(cls, names: tuple[str, ...]):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)
    return __setattr__


def _make_frozen_delattr(cls, names: tuple[str, ...]):
    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __delattr__
