#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/scheduler/freshness.h"
#include "extender/scheduler/protocol.h"

// The filter verb: which of the requested nodes a pod may go to, and why not.
//
// Every reason is the same string for every node that fails for the same cause, because
// kube-scheduler groups identical reasons ("19 netscore: ...") and cuts its FailedScheduling
// message at 1,024 characters; per-node figures go to the debug log. Every failure is
// "unresolvable": evicting pods from a node changes neither its labels nor, within the
// scheduler's preemption pass, its measured traffic, so preemption must not pick these nodes.
// A pod's own mistakes (a malformed annotation) fail every node with a reason the user sees in
// `kubectl describe pod`, which the scheduler honours even with `ignorable: true` (an Error would
// be skipped).
namespace netscore::extender {

// Bytes per second the pod accepts on a node: a plain number or a Kubernetes quantity
// ("500k", "10Mi"; common/quantity). Compared with the collector's average receive rate over the
// window.
inline constexpr std::string_view kMaxReceiveRateAnnotation = "netscore.io/max-receive-rate";
// Bytes per second the pod accepts a node to send (same syntax), compared with the collector's
// average transmit rate over the window.
inline constexpr std::string_view kMaxTransmitRateAnnotation = "netscore.io/max-transmit-rate";
// The link utilisation (rate / link speed) the pod accepts: a fraction ("0.8") or a percent
// ("80%"), compared in the snapshot's direction (the busier of the two for max).
inline constexpr std::string_view kMaxUtilisationAnnotation = "netscore.io/max-utilisation";
// Earlier releases compared this with the raw query value, which was not bytes; a pod still
// carrying it is told to move to the rate annotation instead of being filtered on a wrong unit.
inline constexpr std::string_view kRemovedCeilingAnnotation = "netscore.io/max-receive-bytes";

struct FilterOutcome {
  std::vector<std::size_t> passed;  // indices into ExtenderArgs::names
  std::vector<FailedNode> failed;
  // Set when the pod needed the table (read by run() or given to it): the lookup's freshness and
  // one NodeScore per name.
  bool looked_up = false;
  Freshness freshness = Freshness::detached;
  Lookup lookup;  // the whole lookup when looked_up, for the decision log
  std::vector<NodeScore> found;
};

// One per server thread (not thread-safe: it remembers what it has already warned about).
class Filter {
 public:
  explicit Filter(const Config& config) : config_(config) {}

  // Whether the pod asks for anything the filter checks (a rule's annotation, a rate or
  // utilisation ceiling, or the removed ceiling annotation). Pods that do not pass every node
  // without a table read.
  bool constrains(const ExtenderArgs& args) const;

  // The reasons in `outcome.failed` view strings this Filter owns: valid until the next run().
  // Reads the table when the pod asks for something the table answers.
  void run(const ExtenderArgs& args, const ScoreTableReader* table, std::int64_t now_mono_ns,
           FilterOutcome& outcome);
  // The same with the request's names already looked up (`found`: one per name, as
  // lookup_nodes fills them), so that one table read serves a caller that needs it too.
  void run(const ExtenderArgs& args, const Lookup& lookup, std::span<const NodeScore> found,
           FilterOutcome& outcome);

 private:
  // What the pod's annotations ask of the filter, read once per call.
  struct PodAsks {
    std::uint64_t required = 0;  // label rules the pod must satisfy
    std::optional<std::string_view> rate_text;
    std::optional<std::string_view> transmit_rate_text;
    std::optional<std::string_view> utilisation_text;
    bool removed = false;  // carries the removed byte-ceiling annotation
    bool any() const {
      return required != 0 || rate_text || transmit_rate_text || utilisation_text || removed;
    }
  };
  struct Ceilings {
    std::optional<double> receive;      // bytes/s
    std::optional<double> transmit;     // bytes/s
    std::optional<double> utilisation;  // fraction of the link
    bool any() const { return receive || transmit || utilisation; }
  };
  PodAsks asks(const ExtenderArgs& args) const;
  void warn_once_about(const Lookup& lookup);
  // `look_up(outcome)` fills outcome.found and outcome.lookup when the pod needs the table.
  template <class LookUp>
  void run_with(const ExtenderArgs& args, const LookUp& look_up, FilterOutcome& outcome);
  // The pod's ceilings; nullopt after failing every node when one does not parse.
  std::optional<Ceilings> parse_ceilings(const PodAsks& pod, std::size_t n, FilterOutcome& outcome);
  void fail_all(std::string reason, std::size_t n, FilterOutcome& outcome);
  // Fills reasons_ for this pod: one text per cause, the same for every node it fails.
  void prepare_reasons(const PodAsks& pod, const Ceilings& ceilings, const Lookup& lookup);
  // Why a node the fresh table holds fails one of the pod's ceilings; empty when it passes.
  std::string_view above_ceiling(std::string_view name, const NodeScore& s, const Ceilings& c,
                                 Direction direction, bool closed) const;
  // Why node i fails the pod's label rules; empty when it passes them.
  std::string_view label_verdict(const ExtenderArgs& args, std::size_t i, std::uint64_t required,
                                 bool masks_usable, const FilterOutcome& outcome) const;

  const Config& config_;
  std::vector<std::string> reasons_;  // this call's reasons; FailedNode::reason views them
  std::uint64_t warned_rules_hash_ = 0;
  bool warned_unsynced_ = false;
};

}  // namespace netscore::extender
