"""Reading a WebAssembly module's sections, for the scripts that look inside
the front end's build (split-data-check.py, wasm-why.py)."""


def leb(data, i):
    """The unsigned LEB128 number at `i`, and the index after it."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def sections(data):
    """(id, payload start, payload length) of each section of a module."""
    i = 8
    while i < len(data):
        section_id = data[i]
        size, i = leb(data, i + 1)
        yield section_id, i, size
        i += size
