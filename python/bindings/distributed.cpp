// ember._C._distributed: the process group, its Work handles and the module-level
// collectives (python/ember/distributed/__init__.py gives them torch's signatures).
// Waiting never holds the GIL: the communication thread may need it to drop a tensor
// whose memory belongs to a Python object (a NumPy array).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/distributed.h"
#include "ember/tcp_store.h"

namespace ember::py {
namespace {

namespace dist = ember::distributed;
using dist::WorkPtr;

// async_op=False: wait without the GIL and return None; else return the Work.
nb::object finish(WorkPtr w, bool async_op) {
  if (async_op) return nb::cast(w);
  {
    nb::gil_scoped_release unlocked;
    w->wait();
  }
  return nb::none();
}

std::shared_ptr<dist::ProcessGroup> group_or_default(nb::object group, const char* op) {
  if (group.is_none()) return dist::default_group(op);
  if (nb::isinstance<dist::ProcessGroup>(group))
    return nb::cast<std::shared_ptr<dist::ProcessGroup>>(group);
  throw TypeError(detail::cat(op, ": group must be None or a ProcessGroup, got ",
                              nb::type_name(group.type()).c_str()));
}

// torch's ProcessGroup methods take a tensor or a list of one tensor (one per device).
Tensor one_tensor(nb::handle x, const char* op) {
  if (nb::isinstance<Tensor>(x)) return nb::cast<Tensor>(x);
  if (nb::isinstance<nb::list>(x) || nb::isinstance<nb::tuple>(x)) {
    nb::sequence seq = nb::borrow<nb::sequence>(x);
    EMBER_CHECK(nb::len(seq) == 1 && nb::isinstance<Tensor>(seq[0]), TypeError, op,
                ": expected a tensor or a list of one tensor (one device per process), got ",
                nb::len(seq), " items");
    return nb::cast<Tensor>(seq[0]);
  }
  throw TypeError(detail::cat(op, ": expected a tensor or a list of one tensor, got ",
                              nb::type_name(x.type()).c_str()));
}

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(int64_t(seconds * 1000.0 + 0.5));
}

nb::bytes as_bytes(const std::string& s) { return nb::bytes(s.data(), s.size()); }
std::string from_bytes(const nb::bytes& b) { return std::string(b.c_str(), b.size()); }

// The C++ TCPStore; python/ember/distributed/_tcp_store.py gives it torch's signature.
// Every call that may wait (connect, get, wait, ...) releases the GIL.
void bind_tcp_store(nb::module_& m) {
  using Store = dist::TCPStore;
  using Keys = std::vector<std::string>;
  nb::class_<Store>(m, "TCPStore")
      .def(
          "__init__",
          [](Store* self, const std::string& host, int port, bool is_master, double timeout_s) {
            nb::gil_scoped_release unlocked;
            new (self) Store(host, port, is_master, ms(timeout_s));
          },
          nb::arg("host"), nb::arg("port"), nb::arg("is_master"), nb::arg("timeout"))
      .def_prop_ro("host", &Store::host)
      .def_prop_ro("port", &Store::port)
      .def_prop_ro("is_master", &Store::is_master)
      .def_prop_ro("timeout", [](const Store& s) { return double(s.timeout().count()) / 1000.0; })
      .def("set_timeout", [](Store& s, double t) { s.set_timeout(ms(t)); })
      .def("set",
           [](Store& s, const std::string& k, nb::bytes v) {
             std::string value = from_bytes(v);
             nb::gil_scoped_release unlocked;
             s.set(k, value);
           })
      .def("get",
           [](Store& s, const std::string& k) {
             std::string v;
             {
               nb::gil_scoped_release unlocked;
               v = s.get(k);
             }
             return as_bytes(v);
           })
      .def("add", &Store::add, nb::call_guard<nb::gil_scoped_release>())
      .def("compare_set",
           [](Store& s, const std::string& k, nb::bytes e, nb::bytes d) {
             std::string expected = from_bytes(e), desired = from_bytes(d), v;
             {
               nb::gil_scoped_release unlocked;
               v = s.compare_set(k, expected, desired);
             }
             return as_bytes(v);
           })
      .def("append",
           [](Store& s, const std::string& k, nb::bytes v) {
             std::string value = from_bytes(v);
             nb::gil_scoped_release unlocked;
             s.append(k, value);
           })
      .def("check", &Store::check, nb::call_guard<nb::gil_scoped_release>())
      .def("wait",
           [](Store& s, const Keys& keys, double t) {
             nb::gil_scoped_release unlocked;
             s.wait(keys, ms(t));
           })
      .def("delete_key", &Store::delete_key, nb::call_guard<nb::gil_scoped_release>())
      .def("num_keys", &Store::num_keys, nb::call_guard<nb::gil_scoped_release>())
      .def("multi_get",
           [](Store& s, const Keys& keys) {
             Keys v;
             {
               nb::gil_scoped_release unlocked;
               v = s.multi_get(keys);
             }
             nb::list out;
             for (const auto& x : v) out.append(as_bytes(x));
             return out;
           })
      .def("multi_set", [](Store& s, const Keys& keys, const std::vector<nb::bytes>& values) {
        Keys v;
        for (const auto& b : values) v.push_back(from_bytes(b));
        nb::gil_scoped_release unlocked;
        s.multi_set(keys, v);
      });
}

}  // namespace

void bind_distributed(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_distributed");
  nb::enum_<dist::ReduceOp>(m, "ReduceOp", docstring("distributed.ReduceOp"))
      .value("SUM", dist::ReduceOp::Sum)
      .value("AVG", dist::ReduceOp::Avg)
      .value("MAX", dist::ReduceOp::Max)
      .value("MIN", dist::ReduceOp::Min)
      .value("PRODUCT", dist::ReduceOp::Product)
      .value("BAND", dist::ReduceOp::Band)
      .value("BOR", dist::ReduceOp::Bor)
      .value("BXOR", dist::ReduceOp::Bxor);

  // dynamic_attr: the Python collectives attach their result tensors (`_result`), which
  // result() and get_future() (ember/distributed/_work_future.py) hand back.
  nb::class_<dist::Work>(m, "Work", nb::dynamic_attr(), docstring("distributed.Work"))
      .def(
          "wait",
          [](dist::Work& w, nb::object timeout) {
            // timeout: None, seconds, or a datetime.timedelta (torch's type)
            double s = -1;
            if (!timeout.is_none())
              s = nb::cast<double>(nb::hasattr(timeout, "total_seconds")
                                       ? timeout.attr("total_seconds")()
                                       : timeout);
            nb::gil_scoped_release unlocked;
            if (s >= 0) w.wait(std::chrono::milliseconds(int64_t(s * 1000.0 + 0.5)));
            else w.wait();
            return true;
          },
          nb::arg("timeout").none() = nb::none())
      .def("result",
           [](nb::handle self) {
             return nb::module_::import_("ember.distributed._work_future").attr("result")(self);
           })
      .def("get_future",
           [](nb::handle self) {
             return nb::module_::import_("ember.distributed._work_future").attr("get_future")(self);
           })
      .def("is_completed", &dist::Work::is_completed)
      .def("is_success", &dist::Work::is_success)
      .def("__repr__", [](const dist::Work& w) {
        return detail::cat("<ember.distributed.Work ", w.name(),
                           w.is_completed() ? " completed>" : " pending>");
      });

  nb::class_<dist::ProcessGroup>(m, "ProcessGroup", docstring("distributed.ProcessGroup"))
      .def("rank", &dist::ProcessGroup::rank)
      .def("size", &dist::ProcessGroup::size)
      .def("name", [](const dist::ProcessGroup&) { return "gloo"; })
      .def_prop_ro("global_ranks", &dist::ProcessGroup::global_ranks)
      .def(
          "allreduce",
          [](dist::ProcessGroup& g, nb::handle t, dist::ReduceOp op) {
            return g.all_reduce(one_tensor(t, "ProcessGroup.allreduce"), op);
          },
          nb::arg("tensors"), nb::arg("op") = dist::ReduceOp::Sum)
      .def(
          "broadcast",
          [](dist::ProcessGroup& g, nb::handle t, int root) {
            return g.broadcast(one_tensor(t, "ProcessGroup.broadcast"), root);
          },
          nb::arg("tensors"), nb::arg("root") = 0)
      .def("barrier", [](dist::ProcessGroup& g) { return g.barrier(); })
      .def("__repr__", [](const dist::ProcessGroup& g) {
        return detail::cat("<ember.distributed.ProcessGroup gloo rank ", g.rank(), " of ", g.size(),
                           ">");
      });

  m.def("init_process_group",
        [](const std::string& backend, const std::string& init_method, int rank, int world_size,
           double timeout_s, bool serve_tcp_store, const std::string& store_prefix) {
          dist::InitOptions o;
          o.backend = backend;
          o.init_method = init_method;
          o.store_prefix = store_prefix;
          o.serve_tcp_store = serve_tcp_store;
          o.rank = rank;
          o.world_size = world_size;
          EMBER_CHECK(timeout_s > 0, ValueError,
                      "init_process_group: timeout must be positive, got ", timeout_s, " s");
          o.timeout = std::chrono::milliseconds(int64_t(timeout_s * 1000.0 + 0.5));
          nb::gil_scoped_release unlocked;  // blocks until every rank joined
          dist::init_process_group(o);
        });
  bind_tcp_store(m);
  m.def("is_initialized", &dist::is_initialized);
  m.def("_peer_timeout", [](double op_timeout_s) {  // seconds -> seconds (docs/distributed.md)
    auto op = std::chrono::milliseconds(int64_t(op_timeout_s * 1000.0 + 0.5));
    return double(dist::peer_timeout_for(op).count()) / 1000.0;
  });
  m.def("destroy_process_group", [] {
    nb::gil_scoped_release unlocked;  // joins the communication thread
    dist::destroy_process_group();
  });
  m.def("default_group", [] { return dist::default_group("group.WORLD"); });
  m.def(
      "get_rank", [](nb::object g) { return group_or_default(g, "get_rank")->rank(); },
      nb::arg("group").none());
  m.def(
      "get_world_size", [](nb::object g) { return group_or_default(g, "get_world_size")->size(); },
      nb::arg("group").none());

  m.def(
      "all_reduce",
      [](const Tensor& t, dist::ReduceOp op, nb::object g, bool async_op) {
        return finish(group_or_default(g, "all_reduce")->all_reduce(t, op), async_op);
      },
      nb::arg("tensor"), nb::arg("op"), nb::arg("group").none(), nb::arg("async_op"));
  m.def(
      "broadcast",
      [](const Tensor& t, int src, nb::object g, bool async_op) {
        return finish(group_or_default(g, "broadcast")->broadcast(t, src), async_op);
      },
      nb::arg("tensor"), nb::arg("src"), nb::arg("group").none(), nb::arg("async_op"));
  m.def(
      "all_gather",
      [](const std::vector<Tensor>& outs, const Tensor& in, nb::object g, bool async_op) {
        return finish(group_or_default(g, "all_gather")->all_gather(outs, in), async_op);
      },
      nb::arg("tensor_list"), nb::arg("tensor"), nb::arg("group").none(), nb::arg("async_op"));
  m.def(
      "all_gather_into_tensor",
      [](const Tensor& out, const Tensor& in, nb::object g, bool async_op) {
        return finish(group_or_default(g, "all_gather_into_tensor")
                          ->all_gather_into_tensor(out, in),
                      async_op);
      },
      nb::arg("output_tensor"), nb::arg("input_tensor"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "reduce_scatter",
      [](const Tensor& out, const std::vector<Tensor>& ins, dist::ReduceOp op, nb::object g,
         bool async_op) {
        return finish(group_or_default(g, "reduce_scatter")->reduce_scatter(out, ins, op),
                      async_op);
      },
      nb::arg("output"), nb::arg("input_list"), nb::arg("op"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "reduce_scatter_tensor",
      [](const Tensor& out, const Tensor& in, dist::ReduceOp op, nb::object g, bool async_op) {
        return finish(group_or_default(g, "reduce_scatter_tensor")
                          ->reduce_scatter_tensor(out, in, op),
                      async_op);
      },
      nb::arg("output"), nb::arg("input"), nb::arg("op"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "barrier",
      [](nb::object g, bool async_op) {
        return finish(group_or_default(g, "barrier")->barrier(), async_op);
      },
      nb::arg("group").none(), nb::arg("async_op"));

  // --- groups (groups.cpp) ---
  m.def(
      "new_group",
      [](const std::vector<int>& ranks, double timeout_s) -> nb::object {
        std::shared_ptr<dist::ProcessGroup> g;
        {
          nb::gil_scoped_release unlocked;  // the members connect
          g = dist::new_group(ranks, ms(timeout_s));
        }
        return g ? nb::cast(g) : nb::none();
      },
      nb::arg("ranks"), nb::arg("timeout_s"));
  m.def("is_default_group", [](nb::object g) {
    if (!nb::isinstance<dist::ProcessGroup>(g) || !dist::is_initialized()) return false;
    return nb::cast<std::shared_ptr<dist::ProcessGroup>>(g) == dist::default_group("destroy");
  });
  m.def("destroy_group", [](std::shared_ptr<dist::ProcessGroup> g) {
    nb::gil_scoped_release unlocked;
    dist::destroy_group(g);
  });

  // --- rooted collectives, all_to_all, point to point ---
  m.def(
      "reduce",
      [](const Tensor& t, int dst, dist::ReduceOp op, nb::object g, bool async_op) {
        return finish(group_or_default(g, "reduce")->reduce(t, dst, op), async_op);
      },
      nb::arg("tensor"), nb::arg("dst"), nb::arg("op"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "gather",
      [](const Tensor& t, const std::vector<Tensor>& outs, int dst, nb::object g, bool async_op) {
        return finish(group_or_default(g, "gather")->gather(t, outs, dst), async_op);
      },
      nb::arg("tensor"), nb::arg("gather_list"), nb::arg("dst"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "scatter",
      [](const Tensor& t, const std::vector<Tensor>& ins, int src, nb::object g, bool async_op) {
        return finish(group_or_default(g, "scatter")->scatter(t, ins, src), async_op);
      },
      nb::arg("tensor"), nb::arg("scatter_list"), nb::arg("src"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "all_to_all_single",
      [](const Tensor& out, const Tensor& in, const std::vector<int64_t>& out_splits,
         const std::vector<int64_t>& in_splits, nb::object g, bool async_op) {
        return finish(group_or_default(g, "all_to_all_single")
                          ->all_to_all_single(out, in, out_splits, in_splits),
                      async_op);
      },
      nb::arg("output"), nb::arg("input"), nb::arg("output_split_sizes"),
      nb::arg("input_split_sizes"), nb::arg("group").none(), nb::arg("async_op"));
  m.def(
      "all_to_all",
      [](const std::vector<Tensor>& outs, const std::vector<Tensor>& ins, nb::object g,
         bool async_op) {
        return finish(group_or_default(g, "all_to_all")->all_to_all(outs, ins), async_op);
      },
      nb::arg("output_tensor_list"), nb::arg("input_tensor_list"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "send",
      [](const Tensor& t, int dst, int tag, nb::object g, bool async_op) {
        return finish(group_or_default(g, "send")->send(t, dst, tag), async_op);
      },
      nb::arg("tensor"), nb::arg("dst"), nb::arg("tag"), nb::arg("group").none(),
      nb::arg("async_op"));
  // Waits (async_op=False) and returns the sender's group rank, or returns the Work.
  m.def(
      "recv",
      [](const Tensor& t, int src, int tag, nb::object g, bool async_op) -> nb::object {
        auto source = std::make_shared<int>(src);
        WorkPtr w = group_or_default(g, "recv")->recv(t, src, tag, source);
        if (async_op) return nb::cast(w);
        finish(w, false);
        return nb::cast(*source);
      },
      nb::arg("tensor"), nb::arg("src"), nb::arg("tag"), nb::arg("group").none(),
      nb::arg("async_op"));
  m.def(
      "monitored_barrier",
      [](nb::object g, double timeout_s, bool wait_all_ranks) {
        auto pg = group_or_default(g, "monitored_barrier");  // timeout 0: the group's
        finish(pg->monitored_barrier(timeout_s > 0 ? ms(timeout_s) : pg->timeout(), wait_all_ranks),
               false);
      },
      nb::arg("group").none(), nb::arg("timeout_s"), nb::arg("wait_all_ranks"));
}

}  // namespace ember::py
