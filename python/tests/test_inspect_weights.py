"""`python -m rllm_worker.inspect_weights`: what export_weights writes passes (LoRA on its base, full
weights beside the base's config), and a directory a server could not load fails with the reason."""

import io
import json
import shutil

from safetensors.torch import load_file, save_file

from rllm_worker.inspect_weights import main, serve
from rllm_worker.trainer import Trainer
from test_train import init_params

LORA = {"rank": 4, "alpha": 8, "dropout": 0.0, "targetModules": "all-linear"}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_lora_export_loads_on_its_base(tiny_model_dir, tmp_path, capsys):
    Trainer(init_params(tiny_model_dir, lora=LORA)).export_weights(str(tmp_path / "a"))
    code, out, _ = run(capsys, tmp_path / "a", "--kind", "lora", "--base", tiny_model_dir)
    assert code == 0
    r = json.loads(out)
    assert r["kind"] == "lora" and r["tensors"] > 0 and r["params"] > 0

    # a tensor under a name the model has no place for
    weights = tmp_path / "a" / "adapter_model.safetensors"
    state = load_file(weights)
    name = next(iter(state))
    state[name.replace("layers.0", "layers.99")] = state.pop(name)
    save_file(state, weights)
    code, _, err = run(capsys, tmp_path / "a", "--kind", "lora", "--base", tiny_model_dir)
    assert code == 1 and "layers.99" in err


def test_lora_needs_a_base_and_an_adapter(tiny_qwen3_dir, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, tmp_path / "empty", "--kind", "lora")
    assert code == 1 and "--base" in err
    code, _, err = run(capsys, tmp_path / "empty", "--kind", "lora", "--base", tiny_qwen3_dir)
    assert code == 1 and "adapter_config.json" in err
    code, _, err = run(capsys, tmp_path / "nowhere", "--kind", "full")
    assert code == 1 and "not a directory" in err


def test_full_export_loads_with_the_base_config(tiny_model_dir, tmp_path, capsys):
    out_dir = tmp_path / "f"
    Trainer(init_params(tiny_model_dir)).export_weights(str(out_dir))
    code, _, err = run(capsys, out_dir, "--kind", "full")
    assert code == 1 and "config.json" in err  # the weights alone are no model directory
    shutil.copy(tiny_model_dir / "config.json", out_dir / "config.json")
    code, out, _ = run(capsys, out_dir, "--kind", "full", "--base", tiny_model_dir)
    assert code == 0 and json.loads(out)["kind"] == "full"

    # a tensor missing
    state = load_file(out_dir / "model.safetensors")
    dropped = next(k for k in state if "layers.0" in k)
    del state[dropped]
    save_file(state, out_dir / "model.safetensors")
    code, _, err = run(capsys, out_dir, "--kind", "full")
    assert code == 1 and "missing" in err and dropped in err


def test_full_of_another_model_is_refused_with_base(tiny_qwen3_dir, tmp_path, capsys):
    from tiny_models import make_tiny_model

    other = make_tiny_model(tmp_path / "other", "qwen3", vocab_size=600)
    code, _, err = run(capsys, other, "--kind", "full", "--base", tiny_qwen3_dir)
    assert code == 1 and "not those of the base model" in err


def test_serve_answers_one_line_per_request(tiny_qwen3_dir, tmp_path):
    Trainer(init_params(tiny_qwen3_dir, lora=LORA)).export_weights(str(tmp_path / "a"))
    requests = [
        {"dir": str(tmp_path / "a"), "kind": "lora", "base": str(tiny_qwen3_dir)},
        {"dir": str(tmp_path / "nowhere"), "kind": "full"},
        {"dir": str(tmp_path / "a"), "kind": "lora"},
    ]
    out = io.StringIO()
    serve(io.StringIO("\n".join(json.dumps(r) for r in requests) + "\n\nnot json\n"), out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["ok"] for r in replies] == [True, False, False, False]
    assert replies[0]["result"]["kind"] == "lora"
    assert "not a directory" in replies[1]["error"]
    assert "--base" in replies[2]["error"]
    assert "JSONDecodeError" in replies[3]["error"]
