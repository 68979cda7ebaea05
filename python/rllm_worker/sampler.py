"""The sampler role (PROTOCOL.md, "Sampler methods"): one model, the continuous-batching `Engine`
of generate.py, and four methods — init, set_weights, generate, stop_sequences (shutdown is the
server's).

    generate        validated, queued on the engine; replied (deferred) when its last sequence
                    ends, with the weight version it ran with; a `step` event per forward that
                    sampled tokens for it (one entry per sequence)
    set_weights     queued on the engine: applied once every sequence of the requests already
                    queued has ended (later generate requests wait), then replied
    stop_sequences  ends sequences now; the generate reply follows if that ended its request. A
                    request that has already ended is a no-op (the TypeScript side may find a stop
                    string in text the worker has finished)

`register(server)` returns `work`, serve()'s callable: one engine step, True while anything runs
or waits. Between two steps the server reads every message that arrived, so a generate request
joins the running batch at the next step.
"""

from __future__ import annotations

import json
import os

import torch
from safetensors.torch import load_file, save_file

from rllm_worker.generate import Engine, Request, SamplingParams
from rllm_worker.rpc import DEFER, ProtocolError, Server


# ---- params ----------------------------------------------------------------------------------


def _field(params: dict, method: str, key: str, kinds: tuple, what: str, nullable: bool = False):
    if key not in params:
        raise ProtocolError(f"{method} needs '{key}' ({what})")
    value = params[key]
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ProtocolError(f"{method}: '{key}' must be {what}, got {value!r}")
    return value


def _int(params, method, key, nullable=False):
    return _field(params, method, key, (int,), "an integer" + (" or null" if nullable else ""), nullable)


def _number(params, method, key):
    return float(_field(params, method, key, (int, float), "a number"))


def _str(params, method, key, nullable=False):
    return _field(params, method, key, (str,), "a string" + (" or null" if nullable else ""), nullable)


def _int_list(params, method, key):
    value = _field(params, method, key, (list,), "a list of integers")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ProtocolError(f"{method}: '{key}' must be a list of integers, got {value!r}")
    return value


def _tensors(path: str, method: str, spec: dict[str, torch.dtype]) -> dict[str, torch.Tensor]:
    """The 1-D tensors `spec` names, with those dtypes, from the safetensors file `path`."""
    try:
        tensors = load_file(path)
    except Exception as e:  # noqa: BLE001 — any unreadable file is the caller's error
        raise ProtocolError(f"{method}: cannot read the tensors file {path!r}: {e}") from e
    for name, dtype in spec.items():
        t = tensors.get(name)
        if t is None:
            raise ProtocolError(f"{method}: the tensors file lacks '{name}' (it has: {', '.join(sorted(tensors)) or 'nothing'})")
        if t.dtype != dtype or t.dim() != 1:
            raise ProtocolError(f"{method}: tensor '{name}' must be 1-D {dtype}, got {t.dim()}-D {t.dtype}")
    return tensors


# ---- the role --------------------------------------------------------------------------------


class Sampler:
    def __init__(self, server: Server):
        self.server = server
        self.loaded = None  # model.LoadedModel after init
        self.engine: Engine | None = None
        self.weight_version = 0
        self.ended: set[int] = set()  # generate requests already replied to

    # ---- methods ----

    def init(self, params: dict, request_id: int) -> dict:
        from rllm_worker.model import load_model

        if self.loaded is not None:
            raise RuntimeError("the sampler is already initialised; start a new worker for another model")
        model = _str(params, "init", "model")
        device = _str(params, "init", "device")
        dtype = _str(params, "init", "dtype")
        seed = _int(params, "init", "seed")
        adapter = _str(params, "init", "adapter", nullable=True)
        max_batch = _int(params, "init", "maxBatch", nullable=True)
        if max_batch is not None and max_batch < 1:
            raise ValueError(f"maxBatch must be ≥ 1 (or null: no bound), got {max_batch}")
        version = params.get("weightVersion", 0)
        if isinstance(version, bool) or not isinstance(version, int):
            raise ProtocolError(f"init: 'weightVersion' must be an integer (or absent: 0), got {version!r}")
        torch.manual_seed(seed)
        self.loaded = load_model(model, device, dtype, adapter=adapter, trainable=False)
        self.loaded.model.eval()
        self.engine = Engine(self.loaded.model, max_batch=max_batch)
        self.weight_version = version
        return dict(self.loaded.info)

    def generate(self, params: dict, request_id: int):
        engine = self._engine("generate")
        m = "generate"
        sampling = SamplingParams(
            max_tokens=_int(params, m, "maxTokens"),
            temperature=_number(params, m, "temperature"),
            top_p=_number(params, m, "topP"),
            top_k=_int(params, m, "topK"),
            stop_token_ids=frozenset(_int_list(params, m, "stopTokenIds")),
            top_logprobs=_int(params, m, "topLogprobs"),
            max_seq_len=_int(params, m, "maxSeqLen"),
            vocab_limit=_int(params, m, "vocabLimit", nullable=True) if "vocabLimit" in params else None,
        )
        self._check_model_limits(sampling)
        t = _tensors(_str(params, m, "tensors"), m, {"tokens": torch.int32, "lengths": torch.int32, "seeds": torch.int64})
        prompts = self._prompts(t["tokens"], t["lengths"])
        if t["seeds"].numel() != len(prompts):
            raise ProtocolError(f"generate: 'seeds' has {t['seeds'].numel()} entries for {len(prompts)} prompts; give one per sequence")
        request = engine.add(request_id, prompts, t["seeds"].tolist(), sampling)
        if request.done:  # maxTokens 0, or prompts already maxSeqLen long
            self.ended.add(request_id)
            return self._result(request)
        return DEFER

    def set_weights(self, params: dict, request_id: int):
        engine = self._engine("set_weights")
        directory = _str(params, "set_weights", "dir")
        kind = _str(params, "set_weights", "kind")
        version = _int(params, "set_weights", "weightVersion")
        if kind not in ("full", "lora"):
            raise ProtocolError(f"set_weights: 'kind' must be \"full\" or \"lora\", got {kind!r}")
        needed = ["model.safetensors"] if kind == "full" else ["adapter_model.safetensors", "adapter_config.json"]
        for name in needed:
            if not os.path.isfile(os.path.join(directory, name)):
                raise FileNotFoundError(f"set_weights: {kind} weights need {name} in {directory!r} (written by the trainer's export_weights)")
        if kind == "full" and _is_peft(self.loaded.model):
            raise ValueError("set_weights: kind \"full\" for a sampler started with a LoRA adapter; send the trainer's adapter (kind \"lora\")")

        def apply():
            try:
                (self._load_full if kind == "full" else self._load_lora)(directory)
            except Exception as e:  # noqa: BLE001 — the deferred call fails; the sampler serves on
                self.server.fail(request_id, e)
                return
            self.weight_version = version
            self.server.reply(request_id, {"weightVersion": version})

        engine.update_weights(apply)
        return DEFER

    def stop_sequences(self, params: dict, request_id: int) -> dict:
        engine = self._engine("stop_sequences")
        target = _int(params, "stop_sequences", "request")
        seqs = _int_list(params, "stop_sequences", "seqs")
        if target in self.ended:
            return {}
        request = engine.stop(target, seqs)
        if request is not None:
            self._finish(request)
        return {}

    # ---- the loop ----

    def work(self) -> bool:
        """One engine step: step events, then replies for the requests that ended."""
        if self.engine is None or not self.engine.has_work():
            return False
        try:
            result = self.engine.step()
        except Exception as e:  # noqa: BLE001 — e.g. out of memory: fail what ran, serve on
            for request in self.engine.abort():
                self.ended.add(request.id)
                self.server.fail(request.id, e)
            return self.engine.has_work()
        for phase in result.sampled:
            by_request: dict[int, list] = {}
            for rec in phase:
                by_request.setdefault(rec.request.id, []).append(rec)
            for rid, recs in by_request.items():
                self.server.event("step", **_step_fields(rid, recs))
        for request in result.finished:
            self._finish(request)
        return self.engine.has_work()

    # ---- helpers ----

    def _engine(self, method: str) -> Engine:
        if self.engine is None:
            raise RuntimeError(f"{method} before init: the sampler has no model yet; call init first")
        return self.engine

    def _check_model_limits(self, sampling: SamplingParams) -> None:
        info = self.loaded.info
        limit = info.get("maxSeqLen")
        if limit and sampling.max_seq_len > limit:
            raise ValueError(f"generate: maxSeqLen {sampling.max_seq_len} exceeds the model's {limit}")
        vocab = info.get("vocabSize")
        if vocab and sampling.vocab_limit is not None and sampling.vocab_limit > vocab:
            raise ValueError(f"generate: vocabLimit {sampling.vocab_limit} exceeds the model's vocabulary ({vocab} ids); send at most {vocab}")
        allowed = sampling.vocab_limit or vocab
        if allowed and sampling.top_logprobs > allowed:
            raise ValueError(f"generate: topLogprobs {sampling.top_logprobs} exceeds the vocabulary ({allowed} tokens)")

    def _prompts(self, tokens: torch.Tensor, lengths: torch.Tensor) -> list[list[int]]:
        if lengths.numel() == 0:
            raise ProtocolError("generate: 'lengths' is empty; send at least one prompt")
        if bool((lengths < 1).any()):
            raise ProtocolError(f"generate: every prompt needs ≥ 1 token; 'lengths' is {lengths.tolist()}")
        if int(lengths.sum()) != tokens.numel():
            raise ProtocolError(f"generate: 'lengths' sum to {int(lengths.sum())} but 'tokens' has {tokens.numel()}")
        vocab = self.loaded.info.get("vocabSize")
        if tokens.numel() and (int(tokens.min()) < 0 or (vocab and int(tokens.max()) >= vocab)):
            raise ProtocolError(f"generate: token ids must lie in [0, {vocab}); got {int(tokens.min())}..{int(tokens.max())}")
        return [p.tolist() for p in torch.split(tokens, lengths.tolist())]

    def _finish(self, request: Request) -> None:
        self.ended.add(request.id)
        try:
            self.server.reply(request.id, self._result(request))
        except Exception as e:  # noqa: BLE001 — e.g. the exchange directory vanished
            self.server.fail(request.id, e)

    def _result(self, request: Request) -> dict:
        seqs = request.seqs
        k = request.params.top_logprobs
        total = sum(len(s.tokens) for s in seqs)
        tensors = {
            "token_ids": torch.tensor([t for s in seqs for t in s.tokens], dtype=torch.int32),
            "lengths": torch.tensor([len(s.tokens) for s in seqs], dtype=torch.int32),
            "logprobs": torch.tensor([lp for s in seqs for lp in s.logprobs], dtype=torch.float32),
        }
        if k > 0:
            rows = [top for s in seqs for top in s.top]
            tensors["top_ids"] = torch.tensor([[i for i, _ in top] for top in rows], dtype=torch.int32).reshape(total, k)
            tensors["top_logprobs"] = torch.tensor([[lp for _, lp in top] for top in rows], dtype=torch.float32).reshape(total, k)
        path = self.server.exchange_path("generate")
        save_file(tensors, path)
        finish = [{"reason": s.finish[0], "stopToken": s.finish[1]} for s in seqs]
        return {"weightVersion": self.weight_version, "tensors": path, "finish": finish}

    def _load_full(self, directory: str) -> None:
        """Every parameter from model.safetensors, by its state_dict name (export_weights' "full")."""
        model = self.loaded.model
        device = next(model.parameters()).device
        weights = load_file(os.path.join(directory, "model.safetensors"), device=str(device))
        state = model.state_dict()
        # export_weights writes named_parameters (a tied head once); buffers and tied names are optional
        want = {name: state[name] for name, _ in model.named_parameters()}
        want |= {name: state[name] for name in weights if name in state}
        _check_same_tensors(weights, want, f"the weights in {directory!r}", "the model")
        with torch.no_grad():
            for name, t in weights.items():
                state[name].copy_(t)

    def _load_lora(self, directory: str) -> None:
        """The adapter into the peft-wrapped model (wrapping the base model on first use)."""
        from peft import PeftModel, get_peft_model_state_dict, set_peft_model_state_dict

        model = self.loaded.model
        if not _is_peft(model):
            model = PeftModel.from_pretrained(model, directory, is_trainable=False).eval()
            self.loaded.model = self.engine.model = model
            return
        device = next(model.parameters()).device
        weights = load_file(os.path.join(directory, "adapter_model.safetensors"), device=str(device))
        expected = get_peft_model_state_dict(model, adapter_name=model.active_adapter)
        _check_same_tensors(weights, expected, f"the adapter in {directory!r}", "the sampler's LoRA")
        set_peft_model_state_dict(model, weights, adapter_name=model.active_adapter)


def _check_same_tensors(got: dict, want: dict, source: str, target: str) -> None:
    """Refuses, before anything is loaded, a file whose tensor names or shapes differ from the model's."""
    extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
    if extra or missing:
        raise ValueError(
            f"set_weights: {source} does not match {target} ({len(extra)} unknown tensors, e.g. {extra[:2]}; "
            f"{len(missing)} missing, e.g. {missing[:2]}); was it exported from this model (and LoRA settings)?"
        )
    for name, t in got.items():
        if t.shape != want[name].shape:
            raise ValueError(f"set_weights: '{name}' in {source} has shape {tuple(t.shape)}, {target}'s is {tuple(want[name].shape)}")


def _is_peft(model) -> bool:
    from peft import PeftModel

    return isinstance(model, PeftModel)


def _step_fields(request_id: int, recs: list) -> dict:
    top = [[[i, lp] for i, lp in r.top] for r in recs] if recs[0].top is not None else None
    return {
        "id": request_id,
        "seqs": [r.seq for r in recs],
        "pos": [r.pos for r in recs],
        "tokens": [r.token for r in recs],
        "logprobs": [r.logprob for r in recs],
        "top": top,
    }


def register(server: Server):
    """Registers the sampler's methods on `server`; returns the `work` callable for serve()."""
    sampler = Sampler(server)
    for name in ("init", "set_weights", "generate", "stop_sequences"):
        server.method(name)(getattr(sampler, name))
    return sampler.work
