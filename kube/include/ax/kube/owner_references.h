// Owner references (metadata.ownerReferences): the garbage collector deletes
// an object once every owner it names is gone. A program that creates
// objects at run time names an object its installer owns (its
// ServiceAccount, say) as their owner, so that uninstalling takes them along.
#pragma once

#include <nlohmann/json.hpp>

namespace ax::kube {

// A plain owner reference to `owner` as read from the API: its apiVersion,
// kind, metadata.name and metadata.uid. Neither controller nor
// blockOwnerDeletion: the owner's deletion then deletes the dependents in
// the background and waits for nothing.
nlohmann::json OwnerReferenceTo(const nlohmann::json& owner);

// Adds each reference of `owners` (an array; anything else adds nothing) to
// `object`'s metadata.ownerReferences unless one with the same uid is there
// already. The references it holds stay, in their order.
void AddOwnerReferences(const nlohmann::json& owners, nlohmann::json* object);

}  // namespace ax::kube
