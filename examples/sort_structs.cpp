// A league table: teams (structs) sorted by a key computed from them. The comparator is a
// cutlet lambda over two structs (Struct<Team>, read field by field) that ranks teams by
// points, 3 * wins + draws, most first; merge_sort_keys sorts the structs themselves by it,
// stably: teams level on points keep their input order (here, alphabetical). Then the same
// table the long way, as with a key that is expensive to compute: the key of each team once
// by transform, a stable merge_sort_pairs of key and index, and a gather of the structs
// through a permutation_iterator. Both are checked against std::stable_sort.
//
// It runs on the GPU when there is one and on the CPU device otherwise (no driver needed).
#include <cutlet/algorithms.h>
#include <cutlet/cutlet.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

using namespace cutlet;
namespace alg = cutlet::algorithms;

namespace {

/// One team's season: 16 bytes, read by the kernels in one vector load.
struct Team {
  std::uint32_t id;  ///< position in alphabetical order
  std::int32_t wins, draws, losses;
};

constexpr std::size_t kTeams = 100'003;
constexpr int kGames = 38;

/// A team's points in the kernels (traced where the lambdas call it), and on the host.
i32 points_of(const Struct<Team>& t) { return 3 * t[&Team::wins] + t[&Team::draws]; }
int host_points(const Team& t) { return 3 * t.wins + t.draws; }

}  // namespace

int main() {
  const Device device = driver_available() ? Device(0) : Device::cpu();
  Stream stream(device);

  std::mt19937 rng(38);
  std::vector<Team> teams(kTeams);
  for (std::size_t i = 0; i < kTeams; ++i) {
    const int wins = std::binomial_distribution<int>(kGames, 0.4)(rng);
    const int draws = std::binomial_distribution<int>(kGames - wins, 0.35)(rng);
    teams[i] = Team{static_cast<std::uint32_t>(i), wins, draws, kGames - wins - draws};
  }
  Buffer<Team> d_teams(stream, teams), table(kTeams, device);
  Buffer<std::int32_t> points(kTeams, device), sorted_points(kTeams, device);
  Buffer<std::int32_t> order(kTeams, device), sorted_order(kTeams, device);

  // The structs sorted by a comparator over their fields: most points first.
  alg::merge_sort_keys(stream, d_teams, table,
                       [](Struct<Team> a, Struct<Team> b) { return points_of(a) > points_of(b); });
  const std::vector<Team> got = table.to_host(stream);

  // The same by a key computed once per struct: the key, each team's index sorted with it,
  // then the structs gathered into table order.
  Buffer<Team> gathered(kTeams, device);
  alg::transform(stream, d_teams, kTeams, points, [](Struct<Team> t) { return points_of(t); });
  alg::transform(stream, alg::counting_iterator<std::int32_t>(0), kTeams, order, [](i32 i) { return i; });
  alg::merge_sort_pairs(stream, points, sorted_points, order, sorted_order, [](i32 a, i32 b) { return a > b; });
  alg::transform(stream, alg::permutation_iterator(d_teams, sorted_order), kTeams, gathered,
                 [](Struct<Team> t) { return t; });
  const std::vector<Team> got_by_key = gathered.to_host(stream);

  std::vector<Team> want = teams;
  std::stable_sort(want.begin(), want.end(),
                   [](const Team& a, const Team& b) { return host_points(a) > host_points(b); });
  std::printf("%s: a table of %zu teams\n", device.name().c_str(), kTeams);
  for (std::size_t i = 0; i < 5; ++i)
    std::printf("  %zu. team %6u: %2d won, %2d drawn, %2d lost, %3d points\n", i + 1, got[i].id, got[i].wins,
                got[i].draws, got[i].losses, host_points(got[i]));
  auto same = [](const Team& a, const Team& b) {
    return a.id == b.id && a.wins == b.wins && a.draws == b.draws && a.losses == b.losses;
  };
  bool ok = true;
  for (std::size_t i = 0; i < kTeams; ++i) ok = ok && same(got[i], want[i]) && same(got_by_key[i], want[i]);
  std::printf("%s\n", ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
