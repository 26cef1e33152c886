"""Small helpers to read Triton GPU IR (TTGIR) text: SSA names, types, attribute aliases."""
import re

from . import FrontendError

SSA = r"%[A-Za-z0-9_#.$-]+"
_DTYPES = {"f16": ("f16", 2), "bf16": ("bf16", 2), "f32": ("f32", 4), "tf32": ("tf32", 4),
           "f8E4M3FN": ("e4m3", 1), "f8E5M2": ("e5m2", 1), "i8": ("i8", 1), "i32": ("i32", 4),
           "i64": ("i64", 8), "i1": ("i1", 1)}


def strip_loc(line):
    """The line without a trailing `loc(...)` and comment."""
    line = re.sub(r"\s+loc\((?:[^()]|\([^()]*\))*\)\s*$", "", line.rstrip("\n"))
    return line


def split_type_list(text):
    """Split `a, b<c, d>, e` at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def shaped(type_text):
    """(shape list, element type) of `tensor<128x64xf16, ...>` / `!ttg.memdesc<3x128x64xf16, ...>`."""
    m = re.search(r"(?:tensor|memdesc)<((?:\d+x)*)([a-zA-Z][A-Za-z0-9]*)", type_text)
    if not m:
        return None, None
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def dtype_info(elem):
    if elem not in _DTYPES:
        raise FrontendError(f"unsupported element type '{elem}'")
    return _DTYPES[elem]


def aliases(text):
    """Attribute aliases defined at the top of the module: `#mma = #ttg.nvidia_mma<{...}>`."""
    out = {}
    for m in re.finditer(r"^(#[A-Za-z0-9_]+)\s*=\s*(.*)$", text, re.M):
        out[m.group(1)] = m.group(2)
    return out


def resolve(type_text, alias_map):
    """Replace `#alias` references (not followed by a dot) by their definitions."""
    def sub(m):
        return alias_map.get(m.group(0), m.group(0))
    return re.sub(r"#[A-Za-z0-9_]+(?![.A-Za-z0-9_])", sub, type_text)


def swizzle_bytes(type_text):
    m = re.search(r"swizzlingByteWidth\s*=\s*(\d+)", type_text)
    return int(m.group(1)) if m else 0


def int_list(attr, text):
    m = re.search(attr + r"\s*=\s*\[([^\]]*)\]", text)
    return [int(x) for x in m.group(1).split(",")] if m else None
