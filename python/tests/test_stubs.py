# SPDX-License-Identifier: Apache-2.0
"""The compiled module's stubs (perfmonpy/_perfmonpy.pyi) say what the module has: every class,
function, method and property of each, with the module's own parameter names and defaults, and
nothing the module lacks. Read with ast, compared with the signatures pybind11 writes into each
docstring, so that a binding changed without its stub fails here."""

import ast
import inspect
import pathlib
import re

import perfmonpy
from perfmonpy import _perfmonpy as native

STUB = pathlib.Path(perfmonpy.__file__).resolve().parent / "_perfmonpy.pyi"


def stub_tree():
    return ast.parse(STUB.read_text())


def stub_parameters(function):
    """The stub's parameters, self left out, as (name, default or None)."""
    arguments = function.args
    names = [a.arg for a in arguments.args]
    defaults = [None] * (len(names) - len(arguments.defaults)) + [ast.literal_eval(d) for d in arguments.defaults]
    return [(n, d) for n, d in zip(names, defaults) if n != "self"]


def native_parameters(callable_):
    """The parameters pybind11 wrote into the first line of the docstring, self left out."""
    first = (callable_.__doc__ or "").strip().split("\n")[0]
    inside = re.match(r"\w+\((.*)\) ->", first).group(1)
    found = []
    for part in filter(None, (p.strip() for p in re.split(r",\s*(?![^\[]*\])", inside))):
        name = part.split(":")[0].strip()
        default = part.split("=", 1)[1].strip() if "=" in part else None
        if name != "self":
            found.append((name, None if default is None else ast.literal_eval(default)))
    return found


def test_every_name_of_the_module_is_in_the_stub_and_no_other():
    tree = stub_tree()
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    public = {name for name in dir(native) if not name.startswith("_")}
    assert stubbed == public


def test_functions_take_the_same_parameters():
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            assert stub_parameters(node) == native_parameters(getattr(native, node.name)), node.name


def test_classes_have_the_same_methods_properties_and_parameters():
    for node in stub_tree().body:
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(native, node.name)
        members = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        fields = {m.target.id for m in node.body if isinstance(m, ast.AnnAssign)}
        have = {name for name in dir(cls) if not name.startswith("__") or name in ("__init__", "__enter__", "__exit__")}
        assert set(members) | fields == have, node.name
        for name, member in members.items():
            native_member = inspect.getattr_static(cls, name)
            is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in member.decorator_list)
            assert is_property == isinstance(native_member, property), f"{node.name}.{name}"
            if not is_property and name != "__enter__":
                assert stub_parameters(member) == native_parameters(getattr(cls, name)), f"{node.name}.{name}"
        for field in fields:
            assert isinstance(inspect.getattr_static(cls, field), property), f"{node.name}.{field}"


def test_the_packages_classes_wrap_the_compiled_ones_rather_than_inherit():
    """A compiled class is held, not derived from: its members are the wrapper's to choose, and a
    change in the module cannot leak through a subclass."""
    compiled = tuple(getattr(native, name) for name in dir(native) if isinstance(getattr(native, name), type))
    for name in dir(perfmonpy):
        value = getattr(perfmonpy, name)
        if isinstance(value, type) and value.__module__.startswith("perfmonpy.") and value not in compiled:
            assert not issubclass(value, compiled), f"perfmonpy.{name} derives from a compiled class"
