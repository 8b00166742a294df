// CustomResourceDefinitions (apiextensions.k8s.io/v1): what a CRD object
// means to the resource table. Creating a CRD makes the server serve its
// group, versions and plural like a built-in resource (list, watch, get,
// create, update, patch, delete, the status subresource when a version
// declares it, discovery); deleting it stops serving them and deletes their
// objects (handler.cc).
//
// Served as kube-apiserver does with conversion strategy None: every served
// version shares one store, an object read at another version differs only
// in apiVersion. Not implemented: schema validation and pruning (objects are
// stored as sent), defaulting from the schema, the scale subresource,
// conversion webhooks, additionalPrinterColumns and selectableFields.
//
// Free functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "pkg/apiserverlite/api_error.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

// The resources a CRD defines, one per served version: the storage version
// first (it owns the store), the other served versions as views of it
// (storage_group/storage_plural set). A CRD that breaks kube-apiserver's
// rules that matter here (name = <plural>.<group>, a group with a dot, names
// that are DNS labels, scope Namespaced or Cluster, unique versions with
// exactly one storage version) is a 422 naming the field.
ApiResult<std::vector<ResourceInfo>> CustomResourcesOf(const nlohmann::json& crd);

// The status a new CRD gets once its names are accepted: NamesAccepted and
// Established conditions, acceptedNames (singular and listKind defaulted),
// storedVersions.
void SetEstablishedStatus(nlohmann::json& crd, util::WallTime now);

}  // namespace ksched::apiserver
