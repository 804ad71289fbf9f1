// Semantic model: aliases, **kwargs, argparse defaults, step loops and guards, CUDA use.
#include <gtest/gtest.h>

#include <memory>

#include "parser/model.hpp"
#include "parser/ts.hpp"

namespace perflint {
namespace {

struct Built {
  std::unique_ptr<SourceFile> src;
  ts::Tree tree;
  std::unique_ptr<Model> model;
  const CallInfo* find_call(std::string_view callee_text, int nth = 0) const {
    for (const auto& c : model->calls())
      if (model->text(c.function) == callee_text && nth-- == 0) return &c;
    return nullptr;
  }
};

Built build(const std::string& code) {
  Built b;
  b.src = std::make_unique<SourceFile>(*SourceFile::from_bytes("t.py", code));
  static thread_local ts::Parser parser;
  b.tree = parser.parse(b.src->text());
  b.model = std::make_unique<Model>(*b.src, b.tree.root(), std::vector<std::string>{"call"});
  return b;
}

TEST(Ts, WalkingAMissingFieldVisitsNothing) {
  // `lambda: ...` has no parameters field: rules that walk a field must not crash on its absence
  // (the torch package's `check(ok, lambda: f"{list(shape)}")` crashed the PFL103 batch search).
  Built b = build("check(ok, lambda: list(shape))\n");
  const CallInfo* inner = b.find_call("list");
  ASSERT_NE(inner, nullptr);
  TSNode lambda = ts_node_parent(inner->node);
  while (!ts::is(lambda, "lambda")) lambda = ts_node_parent(lambda);
  TSNode params = ts::field(lambda, "parameters");
  ASSERT_TRUE(ts_node_is_null(params));
  int visited = 0;
  ts::walk(params, [&](TSNode) { return ++visited, true; });
  EXPECT_EQ(visited, 0);
}

TEST(Model, ResolvesImportAliases) {
  auto b = build(
      "import torch.utils.data as tud\n"
      "from torch.utils.data import DataLoader as DL\n"
      "from torch import nn\n"
      "import torch\n"
      "a = tud.DataLoader(ds)\nb = DL(ds)\nc = nn.Linear(2, 2)\nd = torch.utils.data.DataLoader(ds)\ne = Other(ds)\n");
  EXPECT_EQ(b.find_call("tud.DataLoader")->qualname, "torch.utils.data.DataLoader");
  EXPECT_EQ(b.find_call("DL")->qualname, "torch.utils.data.DataLoader");
  EXPECT_EQ(b.find_call("nn.Linear")->qualname, "torch.nn.Linear");
  EXPECT_EQ(b.find_call("torch.utils.data.DataLoader")->qualname, "torch.utils.data.DataLoader");
  EXPECT_EQ(b.find_call("Other")->qualname, "");
}

TEST(Model, ResolvesKwargsThroughDictLiteralDictCallAndUpdate) {
  auto b = build(
      "kw = {'batch_size': 4}\n"
      "kw.update({'num_workers': 2})\n"
      "kw2 = dict(pin_memory=True)\n"
      "kw2.update(shuffle=True)\n"
      "f(ds, **kw)\ng(ds, **kw2)\nh(ds, **unknown)\n");
  const CallInfo* f = b.find_call("f");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->unresolved_kwargs);
  ASSERT_NE(f->keyword("num_workers"), nullptr);
  EXPECT_EQ(b.model->evaluate(f->keyword("num_workers")->value).as_int(), 2);
  const CallInfo* g = b.find_call("g");
  ASSERT_NE(g->keyword("pin_memory"), nullptr);
  ASSERT_NE(g->keyword("shuffle"), nullptr);
  EXPECT_TRUE(b.find_call("h")->unresolved_kwargs);
}

TEST(Model, ArgparseDefaultsBehindArgs) {
  auto b = build(
      "import argparse\n"
      "p = argparse.ArgumentParser()\n"
      "p.add_argument('--num-workers', type=int, default=0)\n"
      "p.add_argument('-j', '--jobs', dest='workers2', default='3', type=int)\n"
      "p.add_argument('--amp', action='store_true')\n"
      "args = p.parse_args()\n"
      "f(args.num_workers, args.workers2, args.amp, args.missing)\n");
  const CallInfo* f = b.find_call("f");
  Value v = b.model->evaluate(f->positional[0]);
  EXPECT_EQ(v.as_int(), 0);
  ASSERT_NE(v.from_option, nullptr);
  EXPECT_EQ(v.from_option->flag, "--num-workers");
  EXPECT_EQ(v.from_option->line, 3u);
  EXPECT_EQ(b.model->evaluate(f->positional[1]).as_int(), 3);
  EXPECT_EQ(b.model->evaluate(f->positional[2]).truthy(), false);
  EXPECT_FALSE(b.model->evaluate(f->positional[3]).known());
}

TEST(Model, StepLoopDirectAndThroughFunctionWithGuards) {
  auto b = build(
      "def train_one_epoch(model, loader, opt):\n"
      "    for i, (x, y) in enumerate(loader):\n"
      "        loss = model(x)\n"
      "        loss.backward()\n"
      "        opt.step()\n"
      "        a = loss.item()\n"
      "        if i % 10 == 0:\n"
      "            b = loss.item()\n"
      "    c = loss.item()\n"
      "for epoch in range(3):\n"
      "    train_one_epoch(m, dl, o)\n"
      "    d = acc.item()\n");
  ASSERT_EQ(b.model->step_loops().size(), 1u);
  EXPECT_EQ(ts_node_start_point(b.model->step_loops()[0]).row, 1u);
  auto item = [&](int nth) { return b.model->step_context(b.find_call("loss.item", nth)->node); };
  EXPECT_TRUE(item(0).per_step());
  EXPECT_TRUE(item(1).in_step);
  EXPECT_FALSE(item(1).per_step());
  EXPECT_FALSE(item(2).in_step);
  EXPECT_FALSE(b.model->step_context(b.find_call("acc.item")->node).in_step);
}

TEST(Model, StepFunctionCalledFromLoopAndEvalLoopIsNotAStep) {
  auto b = build(
      "def train_step(batch):\n"
      "    loss = model(batch)\n"
      "    loss.backward()\n"
      "    optimizer.step()\n"
      "    return loss.item()\n"
      "@torch.no_grad()\n"
      "def evaluate(loader):\n"
      "    for x in loader:\n"
      "        v = model(x).item()\n"
      "for batch in train_loader:\n"
      "    train_step(batch)\n");
  EXPECT_TRUE(b.model->step_context(b.find_call("loss.item")->node).per_step());
  EXPECT_FALSE(b.model->step_context(b.find_call("model(x).item")->node).in_step);
}

TEST(Model, GuardKinds) {
  auto b = build(
      "for x in dl:\n"
      "    loss.backward()\n"
      "    if (i + 1) % log_every == 0 and rank == 0:\n"
      "        a.item()\n"
      "    if i == 0:\n"
      "        b.item()\n"
      "    if rank == 0:\n"
      "        c.item()\n"
      "    if should_log:\n"
      "        d.item()\n");
  EXPECT_FALSE(b.model->step_context(b.find_call("a.item")->node).per_step());
  EXPECT_FALSE(b.model->step_context(b.find_call("b.item")->node).per_step());
  EXPECT_TRUE(b.model->step_context(b.find_call("c.item")->node).per_step());
  EXPECT_FALSE(b.model->step_context(b.find_call("d.item")->node).per_step());
}

TEST(Model, DataLoaderLinkedThroughFunctionParameterAndRepeated) {
  auto b = build(
      "from torch.utils.data import DataLoader\n"
      "train_loader = DataLoader(ds, num_workers=2)\n"
      "val_loader = DataLoader(vs)\n"
      "def train(model, loader):\n"
      "    for x, y in loader:\n"
      "        x = x.to(device)\n"
      "        model(x).backward()\n"
      "def evaluate(loader):\n"
      "    for x, y in loader:\n"
      "        pass\n"
      "for epoch in range(10):\n"
      "    train(model, train_loader)\n"
      "    evaluate(val_loader)\n");
  ASSERT_EQ(b.model->dataloaders().size(), 2u);
  const DataLoaderInfo& train = b.model->dataloaders()[0];
  EXPECT_EQ(train.variable, "train_loader");
  EXPECT_TRUE(train.feeds_step);
  EXPECT_TRUE(train.repeated);
  const DataLoaderInfo& val = b.model->dataloaders()[1];
  EXPECT_FALSE(val.feeds_step);
  EXPECT_FALSE(val.assumed_step);
  const CallInfo* to = b.find_call("x.to");
  EXPECT_EQ(b.model->loader_of_batch(to->receiver), &train);
}

TEST(Model, CudaUse) {
  EXPECT_TRUE(build("device = torch.device('cuda' if ok else 'cpu')\n").model->uses_cuda());
  EXPECT_TRUE(build("x = y.cuda()\n").model->uses_cuda());
  EXPECT_TRUE(build("d = f'cuda:{rank}'\n").model->uses_cuda());
  EXPECT_FALSE(build("print('use cuda if you can')\nx = y.to('cpu')\n").model->uses_cuda());
}

TEST(Model, DeepNestingDoesNotOverflow) {
  std::string code = "x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n";
  auto b = build(code);
  EXPECT_FALSE(b.model->uses_cuda());
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

TEST(Model, LoadersReturnedInATupleAreLinkedToTheCallersNames) {
  auto b = build(
      "from torch.utils.data import DataLoader\n"
      "def get_loaders(args):\n"
      "    train_dl = DataLoader(ds, num_workers=0)\n"
      "    val_dl = DataLoader(vs)\n"
      "    return train_dl, val_dl\n"
      "def make_test():\n"
      "    return DataLoader(ts), DataLoader(us)\n"
      "train_loader, val_loader = get_loaders(args)\n"
      "a, b = make_test()\n"
      "for x in train_loader:\n"
      "    model(x).backward()\n");
  ASSERT_EQ(b.model->dataloaders().size(), 4u);
  EXPECT_EQ(b.model->dataloaders()[0].variable, "train_loader");
  EXPECT_TRUE(b.model->dataloaders()[0].feeds_step);
  EXPECT_EQ(b.model->dataloaders()[1].variable, "val_loader");
  EXPECT_FALSE(b.model->dataloaders()[1].feeds_step);
  EXPECT_FALSE(b.model->dataloaders()[1].assumed_step);
  EXPECT_EQ(b.model->dataloaders()[2].variable, "a");
  EXPECT_EQ(b.model->dataloaders()[3].variable, "b");
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

TEST(Model, BatchNamesFlowIntoAStepFunctionsParameters) {
  auto b = build(
      "def train_step(model, batch, opt):\n"
      "    x, y = batch\n"
      "    x = x.to(device)\n"
      "    w = weights.to(device)\n"
      "    model(x).backward()\n"
      "    opt.step()\n"
      "for batch in train_loader:\n"
      "    train_step(model, batch, optimizer)\n");
  const CallInfo* xto = b.find_call("x.to");
  ASSERT_NE(xto, nullptr);
  EXPECT_TRUE(b.model->is_batch_expression(xto->receiver));
  EXPECT_FALSE(b.model->is_batch_expression(b.find_call("weights.to")->receiver));
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

// Found on a Lightning Fabric example: `train, val, _ = get_dataloaders(...)`. The discarded loader
// keeps its local name and is never assumed to feed the step loop.
TEST(Model, LoaderDiscardedByTheCallerIsNotAssumedToFeedTheStep) {
  auto b = build(
      "from torch.utils.data import DataLoader\n"
      "def loaders():\n"
      "    a_dl = DataLoader(x)\n"
      "    b_dl = DataLoader(y)\n"
      "    c_dl = DataLoader(z)\n"
      "    return a_dl, b_dl, c_dl\n"
      "def fit(opt, dl):\n"
      "    for batch in dl:\n"
      "        model(batch).backward()\n"
      "        opt.step()\n"
      "first, _, _ = loaders()\n"
      "fit(opt, accelerator.prepare(first))\n");
  ASSERT_EQ(b.model->dataloaders().size(), 3u);
  // The step loop iterates a wrapped loader, so nothing is linked: `first` is assumed to feed it.
  EXPECT_TRUE(b.model->dataloaders()[0].assumed_step);
  EXPECT_TRUE(b.model->dataloaders()[1].discarded);
  const DataLoaderInfo& gone = b.model->dataloaders()[2];
  EXPECT_EQ(gone.variable, "c_dl");
  EXPECT_TRUE(gone.discarded);
  EXPECT_FALSE(gone.assumed_step);
  EXPECT_FALSE(gone.feeds_step);
}

// Once a loader is linked to the step loop, an unlinked one (iterated in a comprehension, or kept
// for later) is not assumed to feed it too.
TEST(Model, NoLoaderIsAssumedWhenOneIsLinkedToTheStep) {
  auto b = build(
      "from torch.utils.data import DataLoader\n"
      "fit = DataLoader(x)\n"
      "holdout = DataLoader(y)\n"
      "for batch in fit:\n"
      "    model(batch).backward()\n"
      "acc = sum(model(h).sum() for h in holdout)\n");
  ASSERT_EQ(b.model->dataloaders().size(), 2u);
  EXPECT_TRUE(b.model->dataloaders()[0].feeds_step);
  EXPECT_FALSE(b.model->dataloaders()[1].assumed_step);
}

// pytorch/examples selects its device with torch.accelerator (torch>=2.6): that is CUDA use.
TEST(Model, TorchAcceleratorCountsAsCudaUse) {
  auto b = build(
      "import torch\n"
      "if torch.accelerator.is_available():\n"
      "    device = torch.accelerator.current_accelerator()\n"
      "else:\n"
      "    device = torch.device('cpu')\n");
  EXPECT_TRUE(b.model->uses_cuda());
  EXPECT_FALSE(build("import torch\nx = torch.acceleratorish()\n").model->uses_cuda());
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

// Found on DINO's main_dino.py: `if not math.isfinite(loss.item()): print(loss.item()); sys.exit(1)`.
// A branch that ends the run (exit, raise, break) runs once: not every step. Its condition does.
TEST(Model, BranchThatEndsTheRunIsNotEveryStep) {
  auto b = build(
      "for x in loader:\n"
      "    loss = model(x)\n"
      "    if not ok(loss.item()):\n"
      "        log(loss.sum())\n"
      "        sys.exit(1)\n"
      "    if bad(loss):\n"
      "        raise ValueError(loss.mean())\n"
      "    if done(loss):\n"
      "        keep(loss.max())\n"
      "        break\n"
      "    if big(loss):\n"
      "        show(loss.min())\n"
      "    loss.backward()\n");
  EXPECT_TRUE(b.model->step_context(b.find_call("loss.item")->node).per_step());
  EXPECT_FALSE(b.model->step_context(b.find_call("loss.sum")->node).per_step());
  EXPECT_FALSE(b.model->step_context(b.find_call("loss.mean")->node).per_step());
  EXPECT_FALSE(b.model->step_context(b.find_call("loss.max")->node).per_step());
  EXPECT_TRUE(b.model->step_context(b.find_call("loss.min")->node).per_step());
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

TEST(Model, OnlyParsedArgumentsReadArgparseDefaults) {
  auto b = build(
      "import argparse\n"
      "parser = argparse.ArgumentParser()\n"
      "parser.add_argument('--find-unused', action='store_true', default=True)\n"
      "parser.add_argument('--workers', type=int, default=0)\n"
      "ns, _ = parser.parse_known_args()\n"
      "f(cfg.find_unused, ns.find_unused, args.workers, cfg.workers)\n");
  const CallInfo* f = b.find_call("f");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(b.model->evaluate(f->positional[0]).known());     // a config object, not argparse
  EXPECT_EQ(b.model->evaluate(f->positional[1]).truthy(), true);  // bound from parse_known_args
  EXPECT_EQ(b.model->evaluate(f->positional[2]).as_int(), 0);     // the conventional name
  EXPECT_FALSE(b.model->evaluate(f->positional[3]).known());
}


TEST(Model, AcceleratorBackwardIsAStepMarkerAndPrepareKeepsTheLoader) {
  auto b = build(
      "from accelerate import Accelerator\n"
      "from torch.utils.data import DataLoader\n"
      "accelerator = Accelerator(mixed_precision='bf16')\n"
      "train_dataloader = DataLoader(ds, batch_size=8)\n"
      "eval_dataloader = DataLoader(vs, batch_size=8)\n"
      "model, optimizer, train_dl, eval_dl = accelerator.prepare(model, optimizer, train_dataloader, eval_dataloader)\n"
      "for epoch in range(3):\n"
      "    for batch in train_dl:\n"
      "        loss = model(**batch).loss\n"
      "        accelerator.backward(loss)\n"
      "    for batch in eval_dl:\n"
      "        model(**batch)\n");
  ASSERT_TRUE(b.model->has_step_loop());
  ASSERT_EQ(b.model->step_loops().size(), 1u);
  ASSERT_EQ(b.model->dataloaders().size(), 2u);
  const DataLoaderInfo& train = b.model->dataloaders()[0];
  EXPECT_TRUE(train.feeds_step);
  EXPECT_FALSE(train.assumed_step);
  EXPECT_TRUE(train.repeated);
  EXPECT_TRUE(ts::same(train.step_loop, b.model->step_loops().front()));
  EXPECT_EQ(train.aliases, std::vector<std::string>{"train_dl"});
  const DataLoaderInfo& eval = b.model->dataloaders()[1];
  EXPECT_FALSE(eval.feeds_step);
  EXPECT_FALSE(eval.assumed_step);
  EXPECT_EQ(eval.loops.size(), 1u);
}

TEST(Model, PrepareRebindingTheSameNameAndNonAcceleratePrepare) {
  auto b = build(
      "from accelerate import Accelerator\n"
      "from torch.utils.data import DataLoader\n"
      "loader = DataLoader(ds)\n"
      "model, optimizer, loader = accelerator.prepare(model, optimizer, loader)\n"
      "for batch in loader:\n"
      "    accelerator.backward(model(batch))\n"
      "    optimizer.step()\n");
  ASSERT_EQ(b.model->dataloaders().size(), 1u);
  EXPECT_TRUE(b.model->dataloaders()[0].feeds_step);
  EXPECT_TRUE(b.model->dataloaders()[0].aliases.empty());
  // Without accelerate, an unrelated `.prepare()` does not rebind (a tokenizer, a recipe).
  auto c = build(
      "from torch.utils.data import DataLoader\n"
      "loader = DataLoader(ds)\n"
      "a, other = pipeline.prepare(x, loader)\n");
  ASSERT_EQ(c.model->dataloaders().size(), 1u);
  EXPECT_TRUE(c.model->dataloaders()[0].aliases.empty());
}

TEST(Model, LightningTrainDataloaderFeedsTheStepOncePerEpoch) {
  auto b = build(
      "import lightning as L\n"
      "from torch.utils.data import DataLoader\n"
      "class DM(L.LightningDataModule):\n"
      "    def train_dataloader(self):\n"
      "        loader = DataLoader(self.train_set, batch_size=32, shuffle=True)\n"
      "        return loader\n"
      "    def val_dataloader(self):\n"
      "        return DataLoader(self.val_set, batch_size=32)\n"
      "    def test_dataloader(self):\n"
      "        return DataLoader(self.test_set, batch_size=32)\n"
      "class Model(L.LightningModule):\n"
      "    def train_dataloader(self):\n"
      "        return DataLoader(self.ds)\n"
      "    def helper(self):\n"
      "        return DataLoader(self.ds)\n");
  const auto& ls = b.model->dataloaders();
  ASSERT_EQ(ls.size(), 5u);
  EXPECT_TRUE(ls[0].feeds_step);
  EXPECT_TRUE(ls[0].repeated);
  EXPECT_FALSE(ls[0].framework_reason.empty());
  EXPECT_EQ(b.model->text(ls[0].step_loop), "train_dataloader");
  for (size_t i : {1u, 2u, 4u}) {
    EXPECT_FALSE(ls[i].feeds_step) << i;
    EXPECT_FALSE(ls[i].assumed_step) << i;
    EXPECT_TRUE(ls[i].framework_reason.empty()) << i;
  }
  EXPECT_TRUE(ls[3].feeds_step);
  // A train_dataloader method in a file without Lightning, of a class that is not a Lightning one.
  auto c = build(
      "from torch.utils.data import DataLoader\n"
      "class Data:\n"
      "    def train_dataloader(self):\n"
      "        return DataLoader(self.ds)\n");
  ASSERT_EQ(c.model->dataloaders().size(), 1u);
  EXPECT_FALSE(c.model->dataloaders()[0].feeds_step);
}

// The walk passes over the children of expressions whose text holds no call, comment or CUDA
// string; what it records must not change.
TEST(Model, ExpressionsTheWalkPassesOverHoldNothingItRecords) {
  // Attribute chains written with spaces, a line continuation or a comment resolve as before.
  auto a = build(
      "import torch\n"
      "a = torch .nn. \\\n    Linear(2, 2)\n"
      "m = [torch.nn  # why\n     .ReLU()]\n"
      "r = torch.nn.functional.relu(x)\n");
  ASSERT_EQ(a.model->calls().size(), 3u);
  EXPECT_EQ(a.model->calls()[0].qualname, "torch.nn.Linear");
  EXPECT_EQ(a.model->calls()[1].qualname, "torch.nn.ReLU");
  EXPECT_EQ(a.model->calls()[2].qualname, "torch.nn.functional.relu");
  // CUDA strings inside dicts, tuples and subscripts count; other strings do not.
  EXPECT_TRUE(build("cfg = {'device': 'cuda:0'}\n").model->uses_cuda());
  EXPECT_TRUE(build("pair = name, 'cuda'\n").model->uses_cuda());
  EXPECT_TRUE(build("x = opts['cuda'].y\n").model->uses_cuda());
  EXPECT_FALSE(build("cfg = {'device': 'cpu', 'note': 'no cuda here'}\nx = a.b[c]\n").model->uses_cuda());
  // A plain callee and plain arguments, and arguments holding a call.
  auto d = build("self.model.forward(x, 1, key=v, *rest, **kw)\nf(g(1), y='a')\n");
  const CallInfo* fwd = d.find_call("self.model.forward");
  ASSERT_NE(fwd, nullptr);
  EXPECT_EQ(d.model->text(fwd->receiver), "self.model");
  EXPECT_EQ(fwd->method, "forward");
  ASSERT_EQ(fwd->positional.size(), 2u);
  EXPECT_EQ(d.model->text(fwd->positional[1]), "1");
  EXPECT_TRUE(fwd->star_args);
  ASSERT_EQ(fwd->keywords.size(), 1u);  // **kw is not known: dropped, and marked
  EXPECT_EQ(fwd->keywords[0].name, "key");
  EXPECT_EQ(d.model->text(fwd->keywords[0].value), "v");
  EXPECT_TRUE(fwd->unresolved_kwargs);
  const CallInfo* f = d.find_call("f");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->positional.size(), 1u);
  EXPECT_EQ(d.model->text(f->positional[0]), "g(1)");
  ASSERT_EQ(f->keywords.size(), 1u);
  EXPECT_EQ(d.model->text(f->keywords[0].value), "'a'");
  EXPECT_NE(d.find_call("g"), nullptr);
  // Calls in interpolations and lambdas inside a list are calls.
  auto c = build("x = [f'{g(1)}', lambda: h(2)]\n");
  EXPECT_NE(c.find_call("g"), nullptr);
  EXPECT_NE(c.find_call("h"), nullptr);
  // Comments inside a dict and after an attribute are kept for the engine.
  auto src = *SourceFile::from_bytes("t.py", "d = {\n    'a': 1,  # first\n}\nx = a.b  # second\n");
  ts::Parser parser;
  ts::Tree tree = parser.parse(src.text());
  Model m(src, tree.root(), {"call", "comment"});
  EXPECT_EQ(m.nodes_of_kind("comment").size(), 2u);
}

int derivations = 0;
int count_derivations(const Model&) { return ++derivations; }

TEST(Model, DerivedFactsAreComputedOncePerModel) {
  auto b = build("x = 1\n");
  derivations = 0;
  const int& first = b.model->derived(&count_derivations);
  const int& second = b.model->derived(&count_derivations);
  EXPECT_EQ(derivations, 1);
  EXPECT_EQ(&first, &second);
  EXPECT_EQ(first, 1);
}

}  // namespace
}  // namespace perflint
