// Campaign outputs (spec/fuzz.md "Campaign"): the checkpoint, report.json, report.md, junit.xml,
// and merging shard outputs (`ptodiff fuzz merge`).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/campaign/Campaign.h"

namespace ptodiff::fuzz {

/// The state as JSON (the checkpoint's body and the counting part of report.json).
nlohmann::ordered_json stateToJson(const CampaignState& state);
/// Reads what stateToJson wrote (from a checkpoint or a report). Throws std::runtime_error naming
/// `fileName` and the field when something is missing or mistyped.
CampaignState stateFromJson(const nlohmann::ordered_json& j, const std::string& fileName);

/// OUT/checkpoint.json: the state plus the shard, written atomically.
void writeCheckpoint(const std::filesystem::path& outDir, const CampaignConfig& config, const CampaignState& state);
/// Reads OUT/checkpoint.json; throws std::runtime_error when it is missing, unreadable, or was
/// written for another configuration or shard.
CampaignState readCheckpoint(const std::filesystem::path& outDir, const CampaignConfig& config);

/// Cases per second of the whole campaign (0 before the first second).
double casesPerSecond(const CampaignState& state);
/// Signatures ordered by their first case.
std::vector<const SignatureRecord*> signaturesInCaseOrder(const CampaignState& state);

/// report.json: config, cases, cases_per_second, jobs, failures, signatures, feature_coverage,
/// verdict_digest, phase_seconds, ... (docs/fuzz.md lists every field).
nlohmann::ordered_json reportJson(const CampaignConfig& config, const CampaignState& state);
std::string reportMarkdown(const CampaignConfig& config, const CampaignState& state);
/// One testcase per signature (a single passing "campaign" testcase when there is none).
std::string junitXml(const CampaignState& state);
/// Writes report.json, report.md and junit.xml into config.outDir, each atomically.
void writeReports(const CampaignConfig& config, const CampaignState& state);

/// `ptodiff fuzz merge`: reads report.json of every folder in `shardDirs` (shards of one campaign:
/// equal fingerprints, equal shard counts, distinct shard indices), sums the counts, keeps each
/// signature's earliest case, copies the reproducers into OUT/repro and writes OUT's reports. The
/// merged verdict_digest is FNV-1a over "K DIGEST\n" of the shards in shard order. Throws
/// std::runtime_error naming the offending folder.
CampaignState mergeShards(const std::vector<std::filesystem::path>& shardDirs, const std::filesystem::path& outDir);

}  // namespace ptodiff::fuzz
