"""Training steps of real models (issue 17 item 2), imported by run.py to register them.

Each model is written once here as a function of the module `m` (ember or torch), built with
the same initial weights in both (copied from ember's), and fed the same batches. Before a
row is timed, `_check` runs a few steps in both libraries with dropout off and compares the
losses with PyTorch's: a library whose losses differ is shown as skipped ("WRONG RESULT").

- GPT: nanoGPT's model.py at its README's CPU configuration (n_layer 4, n_head 4, n_embd
  128, block_size 64, batch 12, dropout 0, bias False, vocab 65 of shakespeare_char, tied
  lm_head), AdamW with nanoGPT's weight-decay groups, grad clip 1.0; attention written out
  (masked_fill(-inf) + softmax) and through scaled_dot_product_attention.
- word_language_model (pytorch/examples): the LSTM and the Transformer at their defaults
  (emsize 200, nhid 200, nlayers 2, dropout 0.2, bptt 35, batch 20, Wikitext-2's 33278
  tokens, nhead 2), NLL of log_softmax, clip 0.25, plain SGD at lr 20 as main.py does.
- DCGAN (pytorch/examples): generator and discriminator at 64x64 (nz 100, ngf = ndf = 64),
  BCELoss, Adam(2e-4, betas (0.5, 0.999)); one D step on real + fake, one G step.
- REINFORCE (pytorch/examples): the 4-128-2 policy, one episode of 50 steps (a forward and
  a log_prob per step, then the return-weighted loss, backward, Adam step): per-op overhead.
"""
import math

from common import Skip, workload


def _per_lib(make):
    out = {lib: make(lib) for lib in ("ember", "torch")}
    out["numpy"] = Skip("no autograd")
    return out


def _copy_weights(src, dst, dst_lib):
    """dst (a torch or ember module) gets src's (ember's) parameter values, by name."""
    theirs = dict(dst.named_parameters())
    with dst_lib.no_grad():
        for name, p in src.named_parameters():
            theirs[name].copy_(dst_lib.from_numpy(p.detach().numpy().copy()))


def _checked_steps(L, name, stepper, eval_models=(), rtol=2e-3):
    """{lib: stepper(lib)}, a step returning its loss (float). Three steps each are run first
    (with `eval_models` in eval mode: no dropout, whose random streams differ); ember's row
    becomes a Skip when its losses are not within rtol of torch's."""
    steps = _per_lib(stepper)
    for model in eval_models:
        model.eval()
    ref = [steps["torch"]() for _ in range(3)]
    got = [steps["ember"]() for _ in range(3)]
    for model in eval_models:
        model.train()
    if any(not math.isclose(g, r, rel_tol=rtol, abs_tol=1e-5) for g, r in zip(got, ref)):
        steps["ember"] = Skip(f"WRONG RESULT: {name} losses {got} vs torch's {ref}")
    return steps


# ---------------------------------------------------------------- GPT (nanoGPT's model.py)

GPT = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, vocab=65, batch=12)


def _gpt(m, sdpa):
    nn, F = m.nn, m.nn.functional

    class LayerNorm(nn.Module):  # nanoGPT's: LayerNorm with an optional bias (None here)
        def __init__(self, ndim):
            super().__init__()
            self.weight = nn.Parameter(m.ones(ndim))

        def forward(self, x):
            return F.layer_norm(x, self.weight.shape, self.weight, None, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c_attn = nn.Linear(c["n_embd"], 3 * c["n_embd"], bias=False)
            self.c_proj = nn.Linear(c["n_embd"], c["n_embd"], bias=False)
            self.n_head, self.n_embd = c["n_head"], c["n_embd"]
            T = c["block_size"]
            self.register_buffer("bias", m.tril(m.ones(T, T)).view(1, 1, T, T))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            if sdpa:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
                att = F.softmax(att, dim=-1)
                y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c_fc = nn.Linear(c["n_embd"], 4 * c["n_embd"], bias=False)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * c["n_embd"], c["n_embd"], bias=False)

        def forward(self, x):
            return self.c_proj(self.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.ln_1 = LayerNorm(c["n_embd"])
            self.attn = CausalSelfAttention(c)
            self.ln_2 = LayerNorm(c["n_embd"])
            self.mlp = MLP(c)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class Model(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.wte = nn.Embedding(c["vocab"], c["n_embd"])
            self.wpe = nn.Embedding(c["block_size"], c["n_embd"])
            self.h = nn.ModuleList([Block(c) for _ in range(c["n_layer"])])
            self.ln_f = LayerNorm(c["n_embd"])
            self.lm_head = nn.Linear(c["n_embd"], c["vocab"], bias=False)
            self.lm_head.weight = self.wte.weight  # weight tying, as nanoGPT
            for name, p in self.named_parameters():
                if p.dim() == 2:
                    std = 0.02 / math.sqrt(2 * c["n_layer"]) if name.endswith("c_proj.weight") else 0.02
                    nn.init.normal_(p, 0.0, std)

        def forward(self, idx, targets):
            T = idx.size(1)
            x = self.wte(idx) + self.wpe(m.arange(T))
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return Model(GPT)


def _gpt_optimizer(m, model):
    """nanoGPT's configure_optimizers: decay the 2-d parameters, not the others."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    return m.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.99))


def _gpt_batches(L, n=4):
    np = L["numpy"]
    rng = np.random.default_rng(0)
    c = GPT
    data = rng.integers(0, c["vocab"], (n, c["batch"], c["block_size"] + 1))
    return {lib: [(L[lib].from_numpy(d[:, :-1].copy()), L[lib].from_numpy(d[:, 1:].copy()))
                  for d in data] for lib in ("ember", "torch")}


def _gpt_workload(sdpa):
    def make(L):
        L["ember"].manual_seed(0)
        models = {"ember": _gpt(L["ember"], sdpa)}
        models["torch"] = _gpt(L["torch"], sdpa)
        _copy_weights(models["ember"], models["torch"], L["torch"])
        batches = _gpt_batches(L)
        opts = {lib: _gpt_optimizer(L[lib], models[lib]) for lib in ("ember", "torch")}

        def stepper(lib):
            m, model, opt = L[lib], models[lib], opts[lib]
            state = {"i": 0}

            def step():
                x, y = batches[lib][state["i"] % len(batches[lib])]
                state["i"] += 1
                loss = model(x, y)
                loss.backward()
                m.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                opt.zero_grad(set_to_none=True)
                return loss.item()
            return step
        return _checked_steps(L, "GPT", stepper)
    return make


workload("GPT train step, nanoGPT CPU shapes (4x128, T 64, B 12), manual attention",
         note="forward + cross_entropy + backward + clip + AdamW; losses checked vs torch",
         warm_calls=2)(_gpt_workload(sdpa=False))
workload("GPT train step, nanoGPT CPU shapes (4x128, T 64, B 12), SDPA",
         note="attention through scaled_dot_product_attention(is_causal=True)",
         warm_calls=2)(_gpt_workload(sdpa=True))


# ---------------------------------------------------------------- word_language_model

WLM = dict(ntoken=33278, ninp=200, nhid=200, nlayers=2, nhead=2, dropout=0.2, bptt=35, batch=20,
           lr=20.0, clip=0.25)


def _wlm(m, kind):
    nn, F = m.nn, m.nn.functional
    c = WLM

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout, max_len=5000):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pe = m.zeros(max_len, d_model)
            position = m.arange(0, max_len, dtype=m.float).unsqueeze(1)
            div_term = m.exp(m.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
            pe[:, 0::2] = m.sin(position * div_term)
            pe[:, 1::2] = m.cos(position * div_term)
            self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

        def forward(self, x):
            return self.dropout(x + self.pe[:x.size(0), :])

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(c["dropout"])
            self.encoder = nn.Embedding(c["ntoken"], c["ninp"])
            self.rnn = nn.LSTM(c["ninp"], c["nhid"], c["nlayers"], dropout=c["dropout"])
            self.decoder = nn.Linear(c["nhid"], c["ntoken"])
            nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

        def forward(self, x, hidden):
            emb = self.drop(self.encoder(x))
            output, hidden = self.rnn(emb, hidden)
            decoded = self.decoder(self.drop(output)).view(-1, c["ntoken"])
            return F.log_softmax(decoded, dim=1), hidden

    class TransformerModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.pos_encoder = PositionalEncoding(c["ninp"], c["dropout"])
            layer = nn.TransformerEncoderLayer(c["ninp"], c["nhead"], c["nhid"], c["dropout"])
            self.transformer_encoder = nn.TransformerEncoder(layer, c["nlayers"],
                                                             enable_nested_tensor=False)
            self.encoder = nn.Embedding(c["ntoken"], c["ninp"])
            self.decoder = nn.Linear(c["ninp"], c["ntoken"])
            nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
            T = c["bptt"]  # main.py's _generate_square_subsequent_mask
            self.mask = m.log(m.tril(m.ones(T, T)))

        def forward(self, src, hidden):
            src = self.encoder(src) * math.sqrt(c["ninp"])
            src = self.pos_encoder(src)
            output = self.transformer_encoder(src, self.mask)
            return F.log_softmax(self.decoder(output), dim=-1).view(-1, c["ntoken"]), hidden

    return RNNModel() if kind == "LSTM" else TransformerModel()


def _wlm_workload(kind):
    def make(L):
        np = L["numpy"]
        c = WLM
        L["ember"].manual_seed(0)
        models = {"ember": _wlm(L["ember"], kind)}
        models["torch"] = _wlm(L["torch"], kind)
        _copy_weights(models["ember"], models["torch"], L["torch"])
        rng = np.random.default_rng(0)
        data = rng.integers(0, c["ntoken"], (4, c["bptt"] + 1, c["batch"]))

        def stepper(lib):
            m, model = L[lib], models[lib]
            batches = [(m.from_numpy(d[:-1].copy()), m.from_numpy(d[1:].copy()).view(-1))
                       for d in data]
            state = {"i": 0, "hidden": None}

            def init_hidden():
                z = m.zeros(c["nlayers"], c["batch"], c["nhid"])
                return (z, z.clone()) if kind == "LSTM" else None

            def step():  # main.py's train() body
                x, y = batches[state["i"] % len(batches)]
                state["i"] += 1
                hidden = state["hidden"] if state["hidden"] is not None else init_hidden()
                if kind == "LSTM":
                    hidden = tuple(h.detach() for h in hidden)  # repackage_hidden
                model.zero_grad()
                output, hidden = model(x, hidden)
                state["hidden"] = hidden
                loss = m.nn.functional.nll_loss(output, y)
                loss.backward()
                m.nn.utils.clip_grad_norm_(model.parameters(), c["clip"])
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-c["lr"])
                return loss.item()
            return step
        return _checked_steps(L, f"{kind} LM", stepper, models.values())
    return make


workload("word_language_model LSTM train step (2x200, bptt 35, batch 20, 33278 tokens)",
         note="main.py's defaults: dropout 0.2, clip 0.25, SGD lr 20; losses checked in eval mode",
         warm_calls=2, repeats=5)(_wlm_workload("LSTM"))
workload("word_language_model Transformer train step (2 layers, 200, 2 heads, bptt 35)",
         note="main.py's defaults; losses checked in eval mode", warm_calls=2, repeats=5)(
    _wlm_workload("Transformer"))


# ---------------------------------------------------------------- DCGAN

DCGAN = dict(nz=100, ngf=64, ndf=64, nc=3, batch=16)


def _dcgan(m):
    nn = m.nn
    nz, ngf, ndf, nc = DCGAN["nz"], DCGAN["ngf"], DCGAN["ndf"], DCGAN["nc"]
    G = nn.Sequential(
        nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
        nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())
    D = nn.Sequential(
        nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())
    for net in (G, D):  # main.py's weights_init
        for mod in net.modules():
            name = type(mod).__name__
            if "Conv" in name:
                nn.init.normal_(mod.weight, 0.0, 0.02)
            elif "BatchNorm" in name:
                nn.init.normal_(mod.weight, 1.0, 0.02)
                nn.init.zeros_(mod.bias)
    return G, D


@workload("DCGAN train step, 64x64, batch 16 (D on real + fake, then G)", warm_calls=1, repeats=5,
          note="pytorch/examples dcgan main.py's nets and step (batch 16 instead of 64 to keep "
               "`make bench` short); losses checked vs torch")
def dcgan_step(L):
    np = L["numpy"]
    c = DCGAN
    L["ember"].manual_seed(0)
    nets = {"ember": _dcgan(L["ember"])}
    nets["torch"] = _dcgan(L["torch"])
    for a, b in zip(nets["ember"], nets["torch"]):
        _copy_weights(a, b, L["torch"])
    rng = np.random.default_rng(0)
    real_np = np.tanh(rng.standard_normal((4, c["batch"], c["nc"], 64, 64))).astype("float32")
    noise_np = rng.standard_normal((4, c["batch"], c["nz"], 1, 1)).astype("float32")

    def stepper(lib):
        m = L[lib]
        G, D = nets[lib]
        crit = m.nn.BCELoss()
        optD = m.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
        optG = m.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
        reals = [m.from_numpy(r) for r in real_np]
        noises = [m.from_numpy(z) for z in noise_np]
        ones, zeros = m.full((c["batch"],), 1.0), m.full((c["batch"],), 0.0)
        state = {"i": 0}

        def step():
            i = state["i"] % len(reals)
            state["i"] += 1
            D.zero_grad()
            errD_real = crit(D(reals[i]).view(-1), ones)
            errD_real.backward()
            fake = G(noises[i])
            errD_fake = crit(D(fake.detach()).view(-1), zeros)
            errD_fake.backward()
            optD.step()
            G.zero_grad()
            errG = crit(D(fake).view(-1), ones)
            errG.backward()
            optG.step()
            return (errD_real + errD_fake).item() + errG.item()
        return step
    return _checked_steps(L, "DCGAN", stepper)


# ---------------------------------------------------------------- REINFORCE

@workload("REINFORCE episode, policy 4-128-2, 50 steps", note="per step: forward, softmax, "
          "Categorical log_prob; then returns, loss, backward, Adam: per-op overhead")
def reinforce_episode(L):
    np = L["numpy"]
    rng = np.random.default_rng(0)
    states_np = rng.standard_normal((50, 4)).astype("float32")
    actions_np = rng.integers(0, 2, 50)
    L["ember"].manual_seed(0)

    def build(m):
        nn = m.nn

        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.affine1 = nn.Linear(4, 128)
                self.dropout = nn.Dropout(p=0.6)
                self.affine2 = nn.Linear(128, 2)

            def forward(self, x):
                x = m.relu(self.dropout(self.affine1(x)))
                return m.nn.functional.softmax(self.affine2(x), dim=1)
        return Policy()
    models = {"ember": build(L["ember"])}
    models["torch"] = build(L["torch"])
    _copy_weights(models["ember"], models["torch"], L["torch"])

    def stepper(lib):
        m, policy = L[lib], models[lib]
        opt = m.optim.Adam(policy.parameters(), lr=1e-2)
        states = [m.from_numpy(s).unsqueeze(0) for s in states_np]
        actions = [m.tensor(int(a)) for a in actions_np]
        rewards = [1.0] * len(states)
        eps = float(np.finfo(np.float32).eps)

        def episode():
            log_probs = []
            for s, a in zip(states, actions):  # select_action, with the action given
                probs = policy(s)
                dist = m.distributions.Categorical(probs)
                log_probs.append(dist.log_prob(a))
            R, returns = 0.0, []
            for r in rewards[::-1]:  # finish_episode
                R = r + 0.99 * R
                returns.insert(0, R)
            returns = m.tensor(returns)
            returns = (returns - returns.mean()) / (returns.std() + eps)
            loss = m.cat([-lp * R for lp, R in zip(log_probs, returns)]).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.item()
        return episode
    return _checked_steps(L, "REINFORCE", stepper, models.values())


# ---------------------------------------------------------------- the pieces alone

def _pieces(L, fn, *shapes, ints=None, seed=0):
    """{lib: step} where step runs fn(m, *leaf tensors) then backward of its sum-like output."""
    np = L["numpy"]
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype("float32") for s in shapes]

    def make(lib):
        m = L[lib]
        xs = [m.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
        extra = [m.from_numpy(i) for i in (ints or [])]
        g = None

        def step():
            nonlocal g
            out = fn(m, *xs, *extra)
            if g is None:
                g = m.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape))
                                 .astype("float32"))
            out.backward(g)
            for x in xs:
                x.grad = None
        return step
    return _per_lib(make)


B, H, T, E = 12, 4, 64, 32


@workload("scaled_dot_product_attention causal fwd+bwd, (12, 4, 64, 32)",
          note="nanoGPT's attention shapes")
def sdpa_piece(L):
    return _pieces(L, lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True), (B, H, T, E), (B, H, T, E), (B, H, T, E))


@workload("layer_norm fwd+bwd, (768, 128)", note="nanoGPT's (B*T, C)")
def layer_norm_piece(L):
    return _pieces(L, lambda m, x, w, b: m.nn.functional.layer_norm(x, (128,), w, b),
                   (B * T, 128), (128,), (128,))


@workload("gelu fwd+bwd, (768, 512)", note="nanoGPT's MLP activation")
def gelu_piece(L):
    return _pieces(L, lambda m, x: m.nn.functional.gelu(x), (B * T, 512))


@workload("embedding fwd+bwd, 33278 x 200, 700 indices", note="word_language_model's encoder")
def embedding_piece(L):
    np = L["numpy"]
    idx = np.random.default_rng(2).integers(0, 33278, (35, 20))
    return _pieces(L, lambda m, w, i: m.nn.functional.embedding(i, w), (33278, 200), ints=[idx])


@workload("AdamW step alone, nanoGPT's 0.8M parameters", note="weight decay groups as nanoGPT")
def adamw_piece(L):
    L["ember"].manual_seed(0)
    models = {"ember": _gpt(L["ember"], True)}
    models["torch"] = _gpt(L["torch"], True)
    _copy_weights(models["ember"], models["torch"], L["torch"])

    def make(lib):
        m, model = L[lib], models[lib]
        for p in model.parameters():
            p.grad = m.ones_like(p) * 1e-3
        opt = _gpt_optimizer(m, model)
        return opt.step
    return _per_lib(make)


