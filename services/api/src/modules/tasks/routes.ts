import { bulkTasks } from './bulk-tasks';
import { createTask } from './create-task';
import { deleteTask } from './delete-task';
import { getTask } from './get-task';
import { listTaskActivity } from './list-task-activity';
import { listTasks } from './list-tasks';
import { updateTask } from './update-task';

export const taskRoutes = [listTasks, createTask, bulkTasks, getTask, updateTask, deleteTask, listTaskActivity];
