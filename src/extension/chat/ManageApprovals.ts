import * as vscode from 'vscode';
import type { PermissionGate, RememberedApprovalEntry } from '../../core/permissions';

type Item = vscode.QuickPickItem & { revoke?: () => Promise<void> };

const SCOPE_LABEL: Record<RememberedApprovalEntry['scope'], string> = {
  session: 'allowed for this session',
  workspace: 'always allowed in this workspace',
  server_session: 'all tools of the server allowed for this session',
};

/**
 * "MCP: Manage Tool Approvals": the remembered approvals and the permission rules in one list;
 * picking an entry (or its trash button) revokes it, so the next call it covered asks again. Rules
 * are removed from the settings level that defines them.
 */
export async function manageApprovals(gate: PermissionGate): Promise<void> {
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = 'Tool approvals: pick one to revoke it';
  pick.placeholder = 'Remembered approvals and permission rules';
  pick.matchOnDescription = true;
  const revokeButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Revoke' };
  const refresh = async () => {
    pick.busy = true;
    pick.items = await approvalItems(gate, revokeButton);
    pick.busy = false;
  };
  const revoke = async (item: Item | undefined) => {
    if (!item?.revoke) return;
    await item.revoke();
    await refresh();
  };
  const done = new Promise<void>((resolve) => {
    pick.onDidAccept(() => void revoke(pick.selectedItems[0]));
    pick.onDidTriggerItemButton((e) => void revoke(e.item));
    pick.onDidHide(() => {
      pick.dispose();
      resolve();
    });
  });
  pick.show();
  await refresh();
  return done;
}

async function approvalItems(gate: PermissionGate, button: vscode.QuickInputButton): Promise<Item[]> {
  const remembered: Item[] = (await gate.remembered()).map((entry) => ({
    label: entry.tool === undefined ? `$(server) ${entry.server}` : `$(tools) ${entry.server !== undefined ? `${entry.server} · ` : ''}${entry.tool}`,
    description: SCOPE_LABEL[entry.scope],
    buttons: [button],
    revoke: async () => {
      await gate.revoke(entry);
    },
  }));
  const rules: Item[] = [];
  const settings = vscode.workspace.getConfiguration('mcpHarness.permissions');
  for (const kind of ['allow', 'deny'] as const) {
    const inspected = settings.inspect<string[]>(kind);
    for (const [target, values] of [
      [vscode.ConfigurationTarget.Workspace, inspected?.workspaceValue],
      [vscode.ConfigurationTarget.Global, inspected?.globalValue],
    ] as const) {
      for (const rule of values ?? []) {
        rules.push({
          label: `$(${kind === 'allow' ? 'pass' : 'circle-slash'}) ${rule}`,
          description: `${kind} rule in ${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings (mcpHarness.permissions.${kind})`,
          buttons: [button],
          revoke: async () => {
            await settings.update(kind, (values ?? []).filter((r) => r !== rule), target);
          },
        });
      }
    }
  }
  const none: Item[] = remembered.length + rules.length === 0 ? [{ label: 'No remembered approvals and no rules: every tool asks.' }] : [];
  return [
    ...(remembered.length ? [{ label: 'Remembered approvals', kind: vscode.QuickPickItemKind.Separator } as Item, ...remembered] : []),
    ...(rules.length ? [{ label: 'Rules', kind: vscode.QuickPickItemKind.Separator } as Item, ...rules] : []),
    ...none,
  ];
}
