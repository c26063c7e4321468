"""Joining Annex-B H.264 streams of separately encoded chunks.

Each chunk is a whole x264 encode that starts with its parameter sets and an
IDR picture, so concatenating the streams is already a valid stream when the
parameter sets are identical (x264 --stitchable makes them independent of the
content).  One rule of the standard still needs care: two IDR access units
that follow each other in decoding order must carry different idr_pic_id
(7.4.3).  x264 starts every encode at idr_pic_id 0 and alternates 0/1, so
where a chunk ends with an IDR picture of id 0 (a one-frame chunk, or a
keyframe interval that ends on the chunk's last frame) the next chunk's first
IDR would repeat it.  join() rewrites that one slice header field; nothing
else in the streams changes.

Also usable alone: python3 -m chunked.h264 STREAM.264 lists the IDR pictures
and checks the rule (exit status 1 when it is broken).
"""

import sys

NAL_SLICE, NAL_IDR, NAL_SEI, NAL_SPS, NAL_PPS = 1, 5, 6, 7, 8


class JoinError(Exception):
    pass


def nal_units(data):
    """The NAL units of an Annex-B stream, each with its own start code, so
    that b"".join(nal_units(d)) == d."""
    starts = []
    i = data.find(b"\x00\x00\x01")
    while i >= 0:
        # a four-byte start code's leading zero belongs to the unit it starts
        starts.append(i - 1 if i > 0 and data[i - 1] == 0 and (not starts or i - 1 > starts[-1] + 2) else i)
        i = data.find(b"\x00\x00\x01", i + 3)
    if not starts or starts[0] != 0 and data[:starts[0]].strip(b"\x00"):
        raise JoinError("not an Annex-B H.264 stream (no start code at its beginning)")
    starts[0] = 0
    return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def split_unit(unit):
    """(start code, NAL header byte, escaped payload) of one unit."""
    sc = unit.index(b"\x00\x00\x01") + 3
    return unit[:sc], unit[sc], unit[sc + 1:].rstrip(b"\x00")


def nal_type(unit):
    return split_unit(unit)[1] & 0x1F


def unescape(payload):
    # Every 00 00 03 in an escaped payload is an emulation prevention byte:
    # a literal 00 00 03 would itself have been escaped to 00 00 03 03.
    return payload.replace(b"\x00\x00\x03", b"\x00\x00")


def escape(rbsp):
    out, zeros = bytearray(), 0
    for b in rbsp:
        if zeros >= 2 and b <= 3:
            out.append(3)
            zeros = 0
        out.append(b)
        zeros = zeros + 1 if b == 0 else 0
    if out and out[-1] == 0:   # an RBSP ending in cabac_zero_word
        out.append(3)
    return bytes(out)


class Bits:
    """Reads an RBSP as a string of '0'/'1': slow, but only slice headers
    and parameter sets go through it, and a rewrite happens at a few joins."""

    def __init__(self, rbsp):
        self.s = "".join(format(b, "08b") for b in rbsp)
        self.pos = 0

    def u(self, n):
        v = int(self.s[self.pos:self.pos + n] or "0", 2)
        self.pos += n
        return v

    def ue(self):
        z = self.s.index("1", self.pos) - self.pos
        self.pos += z + 1
        return (1 << z) - 1 + self.u(z)

    def se(self):
        k = self.ue()
        return (k + 1) // 2 if k % 2 else -(k // 2)


def ue_bits(v):
    b = format(v + 1, "b")
    return "0" * (len(b) - 1) + b


HIGH_PROFILES = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135}


def parse_sps(rbsp):
    r = Bits(rbsp)
    profile = r.u(8)
    r.u(16)                                  # constraint flags, level
    sps = {"id": r.ue(), "separate_planes": 0}
    if profile in HIGH_PROFILES:
        chroma = r.ue()
        if chroma == 3:
            sps["separate_planes"] = r.u(1)
        r.ue(), r.ue(), r.u(1)               # bit depths, transform bypass
        if r.u(1):                           # scaling matrices: skipped, not kept
            for i in range(12 if chroma == 3 else 8):
                if r.u(1):
                    last = nxt = 8
                    for _ in range(16 if i < 6 else 64):
                        if nxt:
                            nxt = (last + r.se() + 256) % 256
                        last = nxt or last
    sps["log2_frame_num"] = r.ue() + 4
    sps["poc_type"] = r.ue()
    if sps["poc_type"] == 0:
        sps["log2_poc_lsb"] = r.ue() + 4
    elif sps["poc_type"] == 1:
        raise JoinError("pic_order_cnt_type 1 is not supported (x264 never writes it)")
    r.ue(), r.u(1), r.ue(), r.ue()           # refs, gaps, width, height
    sps["frame_mbs_only"] = r.u(1)
    return sps


def parse_pps(rbsp):
    r = Bits(rbsp)
    pps = {"id": r.ue(), "sps_id": r.ue(), "cabac": r.u(1), "bottom_poc": r.u(1)}
    if r.ue():
        raise JoinError("slice groups are not supported (x264 never writes them)")
    r.ue(), r.ue(), r.u(1), r.u(2), r.se(), r.se(), r.se()
    pps["deblock_ctrl"], _, pps["redundant_pic_cnt"] = r.u(1), r.u(1), r.u(1)
    return pps


# a slice header of the kinds x264 writes fits in far fewer bytes
HEADER_BYTES = 96


def parse_slice(unit, params):
    """Slice header fields of a VCL unit; for an IDR slice also the bit span
    of idr_pic_id and the end of the header (params: {'sps': {id: ...},
    'pps': {id: ...}})."""
    _, hdr, payload = split_unit(unit)
    r = Bits(unescape(payload[:HEADER_BYTES]))
    sl = {"first_mb": r.ue(), "type": r.ue() % 5, "pps_id": r.ue(), "idr": (hdr & 0x1F) == NAL_IDR}
    if not sl["idr"]:
        return sl
    pps = params["pps"][sl["pps_id"]]
    sps = params["sps"][pps["sps_id"]]
    if sps["separate_planes"]:
        r.u(2)
    r.u(sps["log2_frame_num"])
    field = 0
    if not sps["frame_mbs_only"]:
        field = r.u(1)
        if field:
            r.u(1)
    sl["id_start"] = r.pos
    sl["idr_pic_id"] = r.ue()
    sl["id_end"] = r.pos
    if sps["poc_type"] == 0:
        r.u(sps["log2_poc_lsb"])
        if pps["bottom_poc"] and not field:
            r.se()
    if pps["redundant_pic_cnt"]:
        r.ue()
    if sl["type"] != 2:
        raise JoinError("an IDR slice that is not an I slice (x264 never writes one)")
    sl["no_output_of_prior_pics"] = r.u(1)
    r.u(1)                                   # long_term_reference_flag
    r.se()                                   # slice_qp_delta
    if pps["deblock_ctrl"] and r.ue() != 1:
        r.se(), r.se()
    sl["header_end"] = r.pos
    sl["cabac"] = pps["cabac"]
    return sl


def set_idr_pic_id(unit, sl, new_id):
    """The IDR slice unit with idr_pic_id = new_id.  The field is an Exp-Golomb
    code, so its length may change and what follows moves: with CABAC only the
    header (the slice data starts byte-aligned after cabac_alignment_one_bits,
    which are redone), with CAVLC the whole slice, and rbsp_trailing_bits are
    redone."""
    sc, hdr, payload = split_unit(unit)
    s = Bits(unescape(payload)).s
    head = s[:sl["id_start"]] + ue_bits(new_id) + s[sl["id_end"]:sl["header_end"]]
    if sl["cabac"]:
        data_start = -(-sl["header_end"] // 8)
        head += "1" * (-len(head) % 8)
        rbsp = int(head, 2).to_bytes(len(head) // 8, "big") + unescape(payload)[data_start:]
    else:
        body = head + s[sl["header_end"]:s.rindex("1")] + "1"
        body += "0" * (-len(body) % 8)
        rbsp = int(body, 2).to_bytes(len(body) // 8, "big")
    return sc + bytes([hdr]) + escape(rbsp)


def pictures(units, params):
    """The VCL units of a stream grouped into pictures, in decoding order:
    for each picture the headers of its slices (with the index of the unit
    under "unit").  Parameter sets are read into params on the way.  x264
    writes slices in order, so a picture starts at first_mb_in_slice 0."""
    pics = []
    for i, u in enumerate(units):
        t = nal_type(u)
        if t in (NAL_SPS, NAL_PPS):
            kind = "sps" if t == NAL_SPS else "pps"
            p = (parse_sps if t == NAL_SPS else parse_pps)(unescape(split_unit(u)[2]))
            params[kind][p["id"]] = p
        elif t in (NAL_SLICE, NAL_IDR):
            sl = parse_slice(u, params)
            sl["unit"] = i
            if sl["first_mb"] == 0 or not pics:
                pics.append([])
            pics[-1].append(sl)
    return pics


def parameter_sets(units):
    """The distinct SPS and PPS units (x264 repeats them at every IDR)."""
    return {u.lstrip(b"\x00") for u in units if nal_type(u) in (NAL_SPS, NAL_PPS)}


class Joiner:
    """Joins chunk streams one at a time (a long encode need not fit in
    memory): add() checks a chunk against the ones before and returns its
    bytes as they go into the joined stream.  Raises JoinError when the
    chunk cannot follow them."""

    def __init__(self):
        self.count = 0
        self.rewrites = 0          # joins whose idr_pic_id was changed
        self.first_sets = None     # chunk 0's SPS and PPS
        self.prev_idr = None       # idr_pic_id of the last picture so far, if an IDR

    def add(self, data, frames=None):
        k, self.count = self.count, self.count + 1
        units = nal_units(data)
        pics = pictures(units, {"sps": {}, "pps": {}})
        sets = parameter_sets(units)
        if not pics or not pics[0][0]["idr"]:
            raise JoinError(f"chunk {k} does not start with an IDR picture")
        if self.first_sets is None:
            self.first_sets = sets
        elif sets != self.first_sets:
            raise JoinError(f"chunk {k}'s SPS/PPS differ from chunk 0's: the chunks were not encoded "
                            "with the same options and --stitchable, and cannot be joined")
        if frames is not None and len(pics) != frames:
            raise JoinError(f"chunk {k} holds {len(pics)} pictures, {frames} expected")
        first_id = pics[0][0]["idr_pic_id"]
        if first_id == self.prev_idr:
            # the smallest id unlike the previous IDR's and unlike the next
            # picture's when that is an IDR too (x264's alternation in it)
            taken = {self.prev_idr}
            if len(pics) > 1 and pics[1][0]["idr"]:
                taken.add(pics[1][0]["idr_pic_id"])
            first_id = min({0, 1, 2} - taken)
            for sl in pics[0]:
                units[sl["unit"]] = set_idr_pic_id(units[sl["unit"]], sl, first_id)
            self.rewrites += 1
        last = pics[-1][0]
        self.prev_idr = None if not last["idr"] else first_id if len(pics) == 1 else last["idr_pic_id"]
        return b"".join(units)


def join(streams, frames=None):
    """One stream from the chunks' streams, in order (frames: the frame count
    each must hold).  Returns (bytes, number of idr_pic_id rewrites)."""
    j = Joiner()
    out = b"".join(j.add(d, None if frames is None else frames[k]) for k, d in enumerate(streams))
    return out, j.rewrites


def describe(data):
    """(picture count, [(picture index, idr_pic_id)] of IDR pictures,
    [problems])."""
    units = nal_units(data)
    params = {"sps": {}, "pps": {}}
    pics = pictures(units, params)
    idrs = [(i, p[0]["idr_pic_id"]) for i, p in enumerate(pics) if p[0]["idr"]]
    problems = []
    for i, p in enumerate(pics):
        ids = {sl.get("idr_pic_id") for sl in p}
        if len(ids) > 1:
            problems.append(f"picture {i}: its slices disagree on idr_pic_id {sorted(ids)}")
        if i and p[0]["idr"] and pics[i - 1][0]["idr"] and p[0]["idr_pic_id"] == pics[i - 1][0]["idr_pic_id"]:
            problems.append(f"pictures {i - 1} and {i}: consecutive IDR pictures with idr_pic_id {p[0]['idr_pic_id']}")
        if p[0]["idr"] and p[0]["no_output_of_prior_pics"]:
            problems.append(f"picture {i}: no_output_of_prior_pics_flag set (earlier pictures would be dropped)")
    return len(pics), idrs, problems


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m chunked.h264 STREAM.264", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as f:
        n, idrs, problems = describe(f.read())
    print(f"pictures={n} idr=" + ",".join(f"{i}:{v}" for i, v in idrs))
    for p in problems:
        print("problem:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
