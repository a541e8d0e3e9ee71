// The profiler from C++ (ember/profiler.h): Profile around a training step lists the forward
// ops and backward nodes with their calls and times, RecordFunction adds a labelled row,
// and the table has ember.profiler's columns.
#include "frontend_helpers.h"

using namespace ember;

namespace {
const profiler::OpStats* find(const std::vector<profiler::OpStats>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}
}  // namespace

TEST(FrontendProfiler, ProfileListsForwardAndBackwardOpsAndUserScopes) {
  manual_seed(0);
  nn::Linear layer(8, 4);
  Tensor x = randn({16, 8});
  profiler::Profile prof;
  EXPECT_TRUE(profiler::enabled());
  EXPECT_ERROR_NAMES(Error, profiler::Profile(), "already running");
  for (int i = 0; i < 3; ++i) {
    profiler::RecordFunction scope("train_step");
    Tensor loss = mse_loss(layer.forward(x), zeros({16, 4}));
    autograd::backward(loss);
  }
  const auto& rows = prof.stop();
  EXPECT_FALSE(profiler::enabled());
  const profiler::OpStats* lin = find(rows, "linear");
  ASSERT_NE(lin, nullptr);
  EXPECT_EQ(lin->calls, 3);
  EXPECT_FALSE(lin->backward);
  const profiler::OpStats* user = find(rows, "train_step");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(user->calls, 3);
  EXPECT_GE(user->total_ns, lin->total_ns);
  bool any_backward = false;
  for (const auto& r : rows) any_backward |= r.backward;
  EXPECT_TRUE(any_backward);
  EXPECT_GT(prof.wall_ns(), 0);
  const std::string t = prof.table("cpu_time_total", 3);
  for (const char* col : {"Name", "Self %", "Self time", "Total time", "Calls", "Avg self",
                          "Self alloc", "Wall time"})
    EXPECT_NE(t.find(col), std::string::npos) << col << "\n" << t;
  EXPECT_NE(t.find("train_step"), std::string::npos) << t;  // the largest total time
  EXPECT_ERROR_NAMES(ValueError, prof.table("nonsense"), "sort_by");
}

TEST(FrontendProfiler, RowsBeforeStopThrowAndDestructorStops) {
  {
    profiler::Profile prof;
    EXPECT_ERROR_NAMES(Error, prof.rows(), "stop()");
  }
  EXPECT_FALSE(profiler::enabled());
}
