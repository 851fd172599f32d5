"""Renders deploy/overlays/* without kubectl: the subset of kustomize the manifests use.

Debian bookworm ships kubectl 1.20 (kubernetes-client), whose embedded kustomize predates
Components, so the manifest checks cannot rely on `kubectl kustomize` on a fresh machine. This
renders the fields the repository uses (resources, components, patches with or without a target,
configMapGenerator with files or key=file, images, namespace) with kustomize's semantics for them; an unknown
field is an error, so a manifest change that needs more fails here instead of being misrendered.
When a kubectl with a current kustomize is present, check_manifests.py also compares this
rendering with kubectl's.
"""
import copy
import hashlib
import os
import re

import yaml

KNOWN_FIELDS = {"apiVersion", "kind", "resources", "components", "patches", "configMapGenerator", "images",
                "namespace"}
# Kinds the namespace transformer leaves alone.
CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding", "Namespace", "PriorityClass", "StorageClass",
                  "CustomResourceDefinition", "PersistentVolume"}
# Strategic-merge keys of the lists the manifests patch; other lists are replaced.
MERGE_KEYS = {"containers": "name", "initContainers": "name", "env": "name", "volumes": "name",
              "volumeMounts": "mountPath", "ports": "containerPort"}


def load_yaml_docs(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def merge(base, patch, key=None):
    """Strategic merge patch of `patch` into `base` (both plain YAML values)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            out[k] = merge(base[k], v, k) if k in base and v is not None else v
        return out
    merge_key = MERGE_KEYS.get(key)
    if isinstance(base, list) and isinstance(patch, list) and merge_key:
        out = list(base)
        for item in patch:
            index = next((i for i, b in enumerate(out) if b.get(merge_key) == item.get(merge_key)), None)
            if index is None:
                out.append(item)
            else:
                out[index] = merge(out[index], item)
        return out
    return patch


def group_version(api_version):
    group, _, version = api_version.rpartition("/")
    return group, version


def matches(obj, target):
    group, version = group_version(obj["apiVersion"])
    for field, actual in (("group", group), ("version", version), ("kind", obj["kind"]),
                          ("name", obj["metadata"]["name"])):
        if field in target and not re.fullmatch(target[field], actual):
            return False
    labels = obj["metadata"].get("labels", {})
    for selector in filter(None, target.get("labelSelector", "").split(",")):
        k, _, v = selector.partition("=")
        if labels.get(k.strip()) != v.strip():
            return False
    return True


def apply_patches(objects, directory, patches):
    for entry in patches:
        unknown = entry.keys() - {"path", "target"}
        if unknown:
            raise ValueError(f"{directory}: patch fields {sorted(unknown)} are not supported")
        for patch in load_yaml_docs(os.path.join(directory, entry["path"])):
            target = entry.get("target") or {"kind": re.escape(patch["kind"]),
                                             "name": re.escape(patch["metadata"]["name"])}
            hits = [i for i, obj in enumerate(objects) if matches(obj, target)]
            if not hits:
                raise ValueError(f"{directory}: patch {entry['path']} matches no object")
            for i in hits:
                body = {k: v for k, v in patch.items() if k not in ("apiVersion", "kind")}
                body["metadata"] = {k: v for k, v in patch.get("metadata", {}).items() if k not in ("name", "namespace")}
                objects[i] = merge(objects[i], body)


def config_map_hash(config_map):
    # kustomize's name suffix: the first 10 characters of a hash of the encoded object, mapped onto
    # an alphabet without vowels. The exact value does not matter here, only that it follows the
    # content; comparisons with kubectl's rendering strip it.
    digest = hashlib.sha256(yaml.safe_dump(config_map, sort_keys=True).encode()).hexdigest()
    alphabet = "bcdfghkmt2456789"
    return "".join(alphabet[int(c, 16)] for c in digest[:10])


def generate_config_maps(directory, generators):
    out, renames = [], {}
    for gen in generators:
        unknown = gen.keys() - {"name", "files"}
        if unknown:
            raise ValueError(f"{directory}: configMapGenerator fields {sorted(unknown)} are not supported")
        data = {}
        for entry in gen.get("files", []):
            # "key=path" names the key; a bare path is keyed by its file name.
            key, _, path = entry.rpartition("=")
            with open(os.path.join(directory, path), encoding="utf-8") as f:
                data[key or os.path.basename(path)] = f.read()
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": gen["name"]}, "data": data}
        cm["metadata"]["name"] = f"{gen['name']}-{config_map_hash(cm)}"
        renames[gen["name"]] = cm["metadata"]["name"]
        out.append(cm)
    return out, renames


def pod_specs(obj):
    spec = obj.get("spec", {})
    if "template" in spec:
        yield spec["template"].get("spec", {})


def rename_config_maps(objects, renames):
    for obj in objects:
        for spec in pod_specs(obj):
            for volume in spec.get("volumes", []):
                ref = volume.get("configMap")
                if ref and ref.get("name") in renames:
                    ref["name"] = renames[ref["name"]]


def set_images(objects, images):
    for obj in objects:
        for spec in pod_specs(obj):
            for container in spec.get("containers", []) + spec.get("initContainers", []):
                name, _, tag = container["image"].partition(":")
                for image in images:
                    if image["name"] == name:
                        new_tag = image.get("newTag", tag)
                        container["image"] = image.get("newName", name) + (f":{new_tag}" if new_tag else "")


def build(directory):
    kustomization = load_yaml_docs(os.path.join(directory, "kustomization.yaml"))[0]
    unknown = kustomization.keys() - KNOWN_FIELDS
    if unknown:
        raise ValueError(f"{directory}: kustomization fields {sorted(unknown)} are not supported")
    if kustomization.get("kind") == "Component":
        raise ValueError(f"{directory}: a Component must be listed under components")
    objects = []
    for resource in kustomization.get("resources", []):
        path = os.path.join(directory, resource)
        objects += build(path) if os.path.isdir(path) else copy.deepcopy(load_yaml_docs(path))
    for path in kustomization.get("components", []):
        component_dir = os.path.join(directory, path)
        component_kustomization = load_yaml_docs(os.path.join(component_dir, "kustomization.yaml"))[0]
        unknown = component_kustomization.keys() - {"apiVersion", "kind", "resources", "patches"}
        if component_kustomization.get("kind") != "Component" or unknown:
            raise ValueError(f"{component_dir}: expected a Component with resources and patches only")
        # As kustomize does: a component's resources join the overlay's, then its patches apply to all.
        for resource in component_kustomization.get("resources", []):
            objects += copy.deepcopy(load_yaml_docs(os.path.join(component_dir, resource)))
        apply_patches(objects, component_dir, component_kustomization.get("patches", []))
    generated, renames = generate_config_maps(directory, kustomization.get("configMapGenerator", []))
    objects += generated
    apply_patches(objects, directory, kustomization.get("patches", []))
    rename_config_maps(objects, renames)
    set_images(objects, kustomization.get("images", []))
    if "namespace" in kustomization:
        for obj in objects:
            if obj["kind"] not in CLUSTER_SCOPED:
                obj["metadata"]["namespace"] = kustomization["namespace"]
    return objects


def canonical(value, key=None):
    """Merge-keyed lists in key order: kustomize's strategic merge may order them differently."""
    if isinstance(value, dict):
        return {k: canonical(v, k) for k, v in value.items()}
    if isinstance(value, list):
        items = [canonical(v) for v in value]
        if key in MERGE_KEYS and all(isinstance(i, dict) for i in items):
            items.sort(key=lambda i: str(i.get(MERGE_KEYS[key])))
        return items
    return value


def normalized(objects):
    """Objects keyed by kind/name in canonical form with generator hash suffixes removed, for
    comparing renderings."""
    text = yaml.safe_dump(objects, sort_keys=True)
    for o in objects:
        name = o["metadata"]["name"]
        if o["kind"] == "ConfigMap" and re.search(r"-[a-z0-9]{10}$", name):
            text = re.sub(rf"\b{re.escape(name)}\b", name[:-11], text)
    return {f"{o['kind']}/{o['metadata']['name']}": canonical(o) for o in yaml.safe_load(text)}
