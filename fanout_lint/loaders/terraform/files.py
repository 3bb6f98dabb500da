"""Which files of a directory are its Terraform (or OpenTofu) configuration, in the order
the tools read them.

Terraform reads every ``*.tf`` (native syntax) and ``*.tf.json`` (JSON syntax) file of a
directory, except hidden files and editor backups (a name starting with ``.``, ending
with ``~``, or ``#...#``). A file named ``override`` or ``*_override`` (before its
extension) is an override file: it is read after all the others, in lexical order, and
merged into the blocks they define. OpenTofu also reads ``*.tofu`` and ``*.tofu.json``,
and a ``.tofu`` file takes the place of the ``.tf`` file of the same base name (and
``.tofu.json`` that of ``.tf.json``), so a module can hold a Terraform and an OpenTofu
version of one file. Names are compared as written: Terraform's suffixes are
case-sensitive.

Pure functions of the names, shared by discovery, the module scan and the loader, so the
three agree on what a unit is.
"""

from __future__ import annotations

from dataclasses import dataclass

# Longest first: ".tf.json" must not be read as a ".json" file, nor ".tofu.json" as ".json".
CONFIG_SUFFIXES = (".tofu.json", ".tf.json", ".tofu", ".tf")
JSON_SUFFIXES = (".tofu.json", ".tf.json")
# The OpenTofu file and the Terraform file it replaces, per syntax.
_SHADOWS = {".tofu": ".tf", ".tofu.json": ".tf.json"}


@dataclass(eq=False, repr=False)
class ConfigFiles:
    """A Terraform directory's configuration files: the primary ones and the overrides."""

    primary: tuple[str, ...]  # names, in lexical order
    overrides: tuple[str, ...]  # names, in lexical order: merged in this order


def suffix_of(name: str) -> str:
    """The configuration suffix of a file name, or "" for any other file."""
    for suffix in CONFIG_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return suffix
    return ""


def is_config_name(name: str) -> bool:
    return bool(suffix_of(name)) and not _ignored(name)


def is_json(name: str) -> bool:
    return name.endswith(JSON_SUFFIXES)


def config_files(names) -> ConfigFiles:
    """The configuration files among ``names`` (the entries of one directory)."""
    present = {name for name in names if is_config_name(name)}
    kept = []
    for name in present:
        suffix = suffix_of(name)
        if suffix in _SHADOWS.values():
            replacement = name[: -len(suffix)] + _opentofu_suffix(suffix)
            if replacement in present:
                continue  # OpenTofu reads the .tofu file instead
        kept.append(name)
    kept.sort()
    primary = tuple(name for name in kept if not _is_override(name))
    overrides = tuple(name for name in kept if _is_override(name))
    return ConfigFiles(primary, overrides)


def _opentofu_suffix(suffix: str) -> str:
    return next(tofu for tofu, terraform in _SHADOWS.items() if terraform == suffix)


def _is_override(name: str) -> bool:
    base = name[: -len(suffix_of(name))]
    return base == "override" or base.endswith("_override")


def _ignored(name: str) -> bool:
    """Hidden files and editor backups, which Terraform and OpenTofu skip."""
    return name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#"))
